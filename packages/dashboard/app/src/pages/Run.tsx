import { TARGET_SOURCE_PHRASE, verdictSentence } from '@covgate/core/verdict';
import { useEffect } from 'preact/hooks';
import { commitUrl, pullRequestLabel, pullRequestUrl } from '../code-host.js';
import { FolderTree } from '../components/FolderTree.js';
import { RunFeedback } from '../components/RunFeedback.js';
import { RunParts } from '../components/RunParts.js';
import { ChangesTable, PatchTable } from '../components/RunTables.js';
import { ErrorState, Link, Loading, OutcomeTag } from '../components/ui.js';
import { useApp } from '../context.js';
import { formatCoverage, formatTimestamp } from '../format.js';
import { useLoad } from '../hooks.js';
import { navigate, repoPath, runFilePath, runPath } from '../router.js';
import { getRunDetail, useRepoHeadline } from '../run-api.js';
import {
  baselineChoice,
  formatBranches,
  formatCount,
  formatLines,
  formatPercent,
  missingPatch,
} from '../run-format.js';
import type { RunDetail } from '../run-types.js';

/** A commit as a link to the code host when its URL is known, else as code. */
export function CommitRef(props: { sha: string; webUrl: string | null; label?: string }) {
  const url = commitUrl(props.webUrl, props.sha);
  const short = <code class="commit">{props.sha.slice(0, 7)}</code>;
  return url ? (
    <a
      href={url}
      class="external"
      aria-label={`${props.label ?? 'Commit'} ${props.sha.slice(0, 7)} on the code host`}
    >
      {short}
    </a>
  ) : (
    short
  );
}

/** A pull request as a link to the code host when its URL is known, else as `#12`. */
export function PullRequestRef(props: { number: number; webUrl: string | null }) {
  const url = pullRequestUrl(props.webUrl, props.number);
  const label = pullRequestLabel(props.webUrl, props.number);
  return url ? (
    <a
      href={url}
      class="external pull-request"
      aria-label={`Pull request ${label} on the code host`}
    >
      {label}
    </a>
  ) : (
    <span class="pull-request">{label}</span>
  );
}

/**
 * One run: its verdict and which rule decided it, the files whose coverage changed against
 * the baseline, the patch's files and the folder tree. Two requests: the run, and the
 * repository's headline for the code host's URL.
 */
export function Run(props: { repo: string; id: string }) {
  const { client } = useApp();
  const [run, reload] = useLoad((signal) => getRunDetail(client, props.id, signal), props.id);
  // No such run, or a run of another repository: the same page either way.
  const notFound = run.state === 'ready' && (run.value === null || run.value.repo !== props.repo);
  useEffect(() => {
    if (notFound) document.title = 'Run not found · covgate';
    else if (run.state === 'ready' && run.value) {
      document.title = `Run ${run.value.id} of ${run.value.repo} · covgate`;
    }
  }, [run, notFound]);

  const crumbs = (
    <p class="crumbs">
      <Link to="/">Repositories</Link> / <Link to={repoPath(props.repo)}>{props.repo}</Link> /
    </p>
  );
  if (run.state === 'loading')
    return (
      <section>
        {crumbs}
        <Loading what="the run" />
      </section>
    );
  if (run.state === 'error') {
    return (
      <section>
        {crumbs}
        <h1>Run</h1>
        {run.unreachable ? null : <ErrorState message={run.message} onRetry={reload} />}
      </section>
    );
  }
  if (notFound || run.value === null) {
    return (
      <section aria-labelledby="run-title">
        {crumbs}
        <h1 id="run-title">Run not found</h1>
        <p class="state empty" data-testid="run-not-found">
          No run <code>{props.id}</code> of <strong>{props.repo}</strong> is recorded in this
          organisation. The link may be mistyped, or the run may belong to another repository or
          organisation.
        </p>
        <p>
          <Link to={repoPath(props.repo)}>Back to the runs of {props.repo}</Link> ·{' '}
          <Link to="/">All repositories</Link>
        </p>
      </section>
    );
  }
  return <RunPage detail={run.value} crumbs={crumbs} />;
}

function RunPage(props: { detail: RunDetail; crumbs: preact.ComponentChildren }) {
  const { detail } = props;
  const component = detail.component;
  const [headline] = useRepoHeadline(detail.repo, component);
  // Links to the code host wait for the headline; the page does not.
  const webUrl = headline.state === 'ready' ? headline.value.web_url : null;
  const baseline = detail.baseline;

  return (
    <section aria-labelledby="run-title" class="run">
      {props.crumbs}
      <h1 id="run-title">
        Run on {detail.branch}
        {component ? <span class="component-tag">{component}</span> : null}
      </h1>
      <p class="run-meta">
        <time dateTime={detail.created_at}>{formatTimestamp(detail.created_at)}</time> · run{' '}
        <code>{detail.id}</code>
      </p>

      <section class={`verdict verdict-${detail.outcome}`} aria-labelledby="verdict-title">
        <h2 id="verdict-title" class="visually-hidden">
          Verdict
        </h2>
        <p class="verdict-line">
          <OutcomeTag execution={detail} />{' '}
          <span data-testid="verdict">{verdictSentence(detail)}</span>
        </p>
        <dl class="figures">
          <div>
            <dt>Coverage</dt>
            <dd class="number" data-testid="coverage">
              {formatCoverage(detail.coverage)}
            </dd>
          </div>
          <div>
            <dt>Branches</dt>
            <dd data-testid="branches">{formatBranches(detail.branches)}</dd>
          </div>
          <div>
            <dt>Against the baseline</dt>
            <dd data-testid="baseline">
              {baseline && detail.outcome === 'skipped' ? (
                <>
                  Nothing measured: the base branch’s figure stands,{' '}
                  <span class="number">{formatCoverage(baseline.coverage)}</span> in{' '}
                  <Link to={runPath(detail.repo, baseline.id)}>its latest passing run</Link>.
                </>
              ) : baseline ? (
                <>
                  <span class="number">{detail.delta} pts</span> from{' '}
                  <span class="number">{formatCoverage(baseline.coverage)}</span> in{' '}
                  <Link to={runPath(detail.repo, baseline.id)}>the baseline run</Link>,{' '}
                  {baselineChoice(baseline)}
                  {baseline.commit ? (
                    <>
                      {' '}
                      (<CommitRef sha={baseline.commit} webUrl={webUrl} label="Baseline commit" />)
                    </>
                  ) : null}
                </>
              ) : baseline === null ? (
                'No baseline: the base branch had no run to compare with.'
              ) : (
                'Unknown: recorded before covgate kept baselines.'
              )}
            </dd>
          </div>
          <div>
            <dt>Patch</dt>
            <dd data-testid="patch">
              {detail.patch ? (
                <>
                  {detail.patch.percent === null ? (
                    'no coverable line'
                  ) : (
                    <>
                      <span class="number">{formatPercent(detail.patch.percent)}</span> (
                      {formatLines(detail.patch.covered, detail.patch.coverable)} lines)
                    </>
                  )}{' '}
                  · target <span class="number">{formatPercent(detail.patch.target)}</span>,{' '}
                  {TARGET_SOURCE_PHRASE[detail.patch.target_source]} ·{' '}
                  <strong>{detail.patch.passed ? 'met' : 'missed'}</strong>
                </>
              ) : detail.outcome === 'skipped' ? (
                'not measured: the commit was skipped'
              ) : (
                missingPatch(detail).short
              )}
            </dd>
          </div>
          <div>
            <dt>Decided by</dt>
            <dd data-testid="decided-by">
              {detail.outcome === 'skipped'
                ? 'no rule: nothing was measured'
                : detail.decided_by === 'patch'
                  ? 'the patch rule'
                  : detail.decided_by === 'target'
                    ? `the project target (${detail.project_target?.target.toFixed(2) ?? '?'}%${detail.project_target?.source === 'organisation' ? `, ${TARGET_SOURCE_PHRASE.organisation}` : ''})`
                    : detail.decided_by === 'branches'
                      ? `the branch rule (${detail.branch_target?.target.toFixed(2) ?? '?'}%)`
                      : detail.decided_by === 'patch_branches'
                        ? `the patch branch rule (${detail.patch?.branch_target?.target.toFixed(2) ?? '?'}%)`
                        : baseline === null && detail.decided_by === undefined
                          ? 'nothing (no baseline)'
                          : 'the coverage change'}
            </dd>
          </div>
        </dl>
      </section>

      <dl class="details">
        <div>
          <dt>Commit</dt>
          <dd>{detail.commit ? <CommitRef sha={detail.commit} webUrl={webUrl} /> : 'not sent'}</dd>
        </div>
        {detail.pull_request !== undefined ? (
          <div>
            <dt>Pull request</dt>
            <dd>
              <PullRequestRef number={detail.pull_request} webUrl={webUrl} />
            </dd>
          </div>
        ) : null}
        {detail.base_commit ? (
          <div>
            <dt>Merge base</dt>
            <dd>
              <CommitRef sha={detail.base_commit} webUrl={webUrl} label="Merge base" />
            </dd>
          </div>
        ) : null}
        <div>
          <dt>Component</dt>
          <dd>{component ?? 'none'}</dd>
        </div>
        {detail.policy ? (
          <div>
            <dt>Policy</dt>
            <dd>
              covgate.yml{' '}
              <code title={detail.policy.digest}>{detail.policy.digest.slice(0, 12)}</code>
              {detail.policy.commit ? (
                <>
                  {' at '}
                  <CommitRef sha={detail.policy.commit} webUrl={webUrl} label="Policy at commit" />
                </>
              ) : (
                ' (read outside git)'
              )}
            </dd>
          </div>
        ) : null}
        {detail.policy_edited ? (
          <div>
            <dt>Policy change</dt>
            <dd data-testid="policy-edited">
              This change edits <code>{detail.policy_edited}</code>; the new policy applies after
              merge.
            </dd>
          </div>
        ) : null}
      </dl>

      {detail.parts ? <RunParts repo={detail.repo} parts={detail.parts} webUrl={webUrl} /> : null}

      <RunFeedback feedback={detail.feedback} />

      {detail.outcome === 'skipped' ? (
        <p class="state empty" data-testid="skipped-note">
          This commit was recorded as having nothing to measure ({detail.skip_reason}): it has no
          files, patch or folders, and it is never a baseline.
        </p>
      ) : (
        <RunContents detail={detail} />
      )}
    </section>
  );
}

/** The files changed, the patch and the folders of a measured run. */
function RunContents(props: { detail: RunDetail }) {
  const { detail } = props;
  return (
    <>
      <h2>Files changed</h2>
      <FilesChanged detail={detail} />

      <h2>Patch</h2>
      <PatchSection detail={detail} />

      <h2>Folders</h2>
      {detail.files === null ? (
        <p class="state empty" data-testid="run-no-files">
          {detail.detail_pruned_at === undefined
            ? 'This run sent no per-file list: there is no folder to show.'
            : prunedSentence(detail.detail_pruned_at)}
        </p>
      ) : (
        <>
          {detail.tree_truncated ? (
            <p class="note">
              This run has more folders than covgate lists: the deepest are left out, and their
              files appear under the nearest folder shown.
            </p>
          ) : null}
          <FolderTree
            tree={detail.tree ?? []}
            files={detail.files}
            branches={detail.branches !== undefined}
            onOpenFile={(path) => navigate(runFilePath(detail.repo, detail.id, path))}
          />
        </>
      )}
    </>
  );
}

/** What a run whose detail retention deleted shows where its files were. */
function prunedSentence(prunedAt: string): string {
  return `The per-file list and line data of this run were deleted on ${formatTimestamp(prunedAt)} by the server’s retention setting; its figures and verdict remain.`;
}

function FilesChanged(props: { detail: RunDetail }) {
  const { detail } = props;
  if (detail.baseline === null || detail.baseline === undefined) {
    return <p class="state empty">No baseline run: nothing to compare the files with.</p>;
  }
  if (!detail.changes) {
    return (
      <p class="state empty">
        {detail.detail_pruned_at !== undefined
          ? prunedSentence(detail.detail_pruned_at)
          : detail.files === null
            ? 'This run sent no per-file list: covgate cannot say which files changed.'
            : 'The baseline run sent no per-file list: covgate cannot say which files changed.'}
      </p>
    );
  }
  if (detail.changes.total === 0) {
    return <p class="state empty">No file’s coverage changed against the baseline run.</p>;
  }
  return (
    <ChangesTable
      changes={detail.changes}
      fileTo={(path) => runFilePath(detail.repo, detail.id, path)}
    />
  );
}

function PatchSection(props: { detail: RunDetail }) {
  const { patch, patch_files: files } = props.detail;
  if (!patch) return <p class="state empty">{missingPatch(props.detail).sentence}</p>;
  if (patch.coverable === 0) {
    return (
      <p class="state empty">
        The patch has no coverable line (only tests, docs or configuration changed): the patch rule
        does not fail it.
      </p>
    );
  }
  if (!files || files.length === 0) {
    return <p class="state empty">The run sent its patch’s total only, without per-file counts.</p>;
  }
  const missed = patch.coverable - patch.covered;
  return (
    <>
      <p class="note" data-testid="patch-summary">
        {missed === 0
          ? 'Every coverable line of the patch is covered.'
          : `${formatCount(missed)} of ${formatCount(patch.coverable)} coverable lines of the patch are not covered, in ${files.filter((file) => file.patch_covered < file.patch_coverable).length} of ${files.length} files.`}
      </p>
      <PatchTable
        files={files}
        fileTo={(path) => runFilePath(props.detail.repo, props.detail.id, path)}
      />
    </>
  );
}
