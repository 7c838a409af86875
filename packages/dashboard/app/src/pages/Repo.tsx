import type { Execution, ExecutionSeries, Outcome } from '@covgate/client';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { runsOf } from '../chart-data.js';
import { HistoryChart } from '../components/Chart.js';
import { CodeHostLinkPanel } from '../components/CodeHostLink.js';
import { Form, TextField } from '../components/Form.js';
import { CodeBlock, ErrorState, Link, LoadStatus, OutcomeTag } from '../components/ui.js';
import { useApp } from '../context.js';
import {
  badgeMarkdown,
  formatComparison,
  formatCoverage,
  formatTimestamp,
  pickBaseBranch,
} from '../format.js';
import { type Load, useFailure, useLoad } from '../hooks.js';
import { filtersQuery, href, navigate, type RunFilters, repoPath, runPath } from '../router.js';
import { useRepoHeadline } from '../run-api.js';
import { formatPoints, formatRunBranches } from '../run-format.js';
import type { RepoHeadline } from '../run-types.js';
import { CommitRef, PullRequestRef } from './Run.js';

/** Records drawn at most: the newest ones when a repository has more (one request). */
export const HISTORY_LIMIT = 1000;
const FEED_PAGE = 20;

/**
 * One repository: history chart, badge, executions feed. The chart's runs come in one
 * request (`GET /v1/executions/series`); the page costs five: session, series, runs,
 * headline and the repository's link.
 * A repository without any run is unknown: it only exists through its runs.
 */
export function Repo(props: { repo: string; filters: RunFilters }) {
  const { client, session } = useApp();
  const component = props.filters.component || undefined;
  const [headline, reloadHeadline] = useRepoHeadline(props.repo, component);

  const [history, reload] = useLoad<ExecutionSeries>(
    (signal) =>
      client.getExecutionSeries({
        org: session.org,
        repo: props.repo,
        limit: HISTORY_LIMIT,
        // The chart follows the runs' component filter: one component's line, not every
        // component's figures joined into one.
        ...(props.filters.component !== undefined ? { component: props.filters.component } : {}),
        signal,
      }),
    `${props.repo}\u0000${props.filters.component ?? '*'}`,
  );
  const runs = useMemo(
    () => (history.state === 'ready' ? runsOf(history.value.points) : []),
    [history],
  );
  // Only the unfiltered series says the repository has no run at all.
  const notFound =
    history.state === 'ready' && history.value.total === 0 && props.filters.component === undefined;
  useEffect(() => {
    if (notFound) document.title = 'Repository not found · covgate';
  }, [notFound]);

  if (notFound) {
    return (
      <section aria-labelledby="repo-title">
        <p class="crumbs">
          <Link to="/">Repositories</Link> /
        </p>
        <h1 id="repo-title">Repository not found</h1>
        <p class="state empty" data-testid="repo-not-found">
          No run of a repository named <strong>{props.repo}</strong> is recorded in {session.org}.
          Names are case-sensitive; a repository appears with its first run.
        </p>
        <p>
          <Link to="/">Back to the repositories</Link> ·{' '}
          <Link to="/onboarding">Add a repository</Link>
        </p>
      </section>
    );
  }

  // The picked component's badge: each component has its own baseline and badge.
  const badge = client.badgeUrl({
    org: session.org,
    repo: props.repo,
    ...(component ? { component } : {}),
  });
  const page = new URL(
    href(repoPath(props.repo, component ? { component } : {})),
    window.location.href,
  ).href;

  return (
    <section aria-labelledby="repo-title">
      <p class="crumbs">
        <Link to="/">Repositories</Link> /
      </p>
      <h1 id="repo-title">{props.repo}</h1>
      <Headline repo={props.repo} headline={headline} onRetry={reloadHeadline} />
      <h2>Coverage history</h2>
      <LoadStatus load={history} what="the coverage history" onRetry={reload} />
      {history.state === 'ready' ? (
        <>
          <HistoryChart runs={runs} baseBranch={pickBaseBranch(runs)} />
          {history.value.total > runs.length ? (
            <p class="note">
              Showing the newest {runs.length} of {history.value.total} runs.
            </p>
          ) : null}
        </>
      ) : null}
      <h2>Badge</h2>
      <div class="badge-row">
        <img src={badge} alt={`${props.repo} coverage badge`} height={20} />
      </div>
      <CodeBlock code={badgeMarkdown(badge, page)} label="badge Markdown" />
      <h2 id="runs-title">Runs</h2>
      <Filters
        repo={props.repo}
        filters={props.filters}
        components={headline.state === 'ready' ? headline.value.components : []}
      />
      <Feed
        repo={props.repo}
        filters={props.filters}
        webUrl={headline.state === 'ready' ? headline.value.web_url : null}
      />
      {/* The headline says whether there is a link: no request that could only 404. */}
      {headline.state === 'ready' ? (
        <CodeHostLinkPanel repo={props.repo} linked={headline.value.code_host_link !== null} />
      ) : null}
    </section>
  );
}

type FeedState = {
  executions: Execution[];
  cursor: string | null;
  total: number;
  more: 'idle' | 'loading' | { error: string };
};

/** The `GET /v1/executions` query of the filters (`component: ''` asks for runs without one). */
function listQuery(filters: RunFilters) {
  return {
    ...(filters.branch ? { branch: filters.branch } : {}),
    ...(filters.outcome ? { outcome: filters.outcome } : {}),
    ...(filters.component !== undefined ? { component: filters.component } : {}),
  };
}

/** The executions feed, newest first, filtered, paged with the API's cursor. */
function Feed(props: { repo: string; filters: RunFilters; webUrl: string | null }) {
  const { client, session } = useApp();
  const failed = useFailure();
  const [extra, setExtra] = useState<FeedState | null>(null);
  const filtered = filtersQuery(props.filters) !== '';
  const [first, reload] = useLoad(
    async (signal) => {
      setExtra(null);
      const page = await client.listExecutions({
        org: session.org,
        repo: props.repo,
        limit: FEED_PAGE,
        cursor: '',
        ...listQuery(props.filters),
        signal,
      });
      return page;
    },
    `${props.repo}${filtersQuery(props.filters)}`,
  );

  if (first.state !== 'ready') return <LoadStatus load={first} what="runs" onRetry={reload} />;
  const feed: FeedState = extra ?? {
    executions: first.value.executions,
    cursor: first.value.next_cursor ?? null,
    total: first.value.total,
    more: 'idle',
  };
  if (feed.executions.length === 0) {
    return (
      <p class="state empty" data-testid="runs-empty">
        {filtered ? 'No run matches these filters.' : 'No runs yet.'}
      </p>
    );
  }

  const loadMore = async () => {
    if (feed.cursor === null) return;
    setExtra({ ...feed, more: 'loading' });
    try {
      const page = await client.listExecutions({
        org: session.org,
        repo: props.repo,
        limit: FEED_PAGE,
        cursor: feed.cursor,
        ...listQuery(props.filters),
      });
      setExtra({
        executions: [...feed.executions, ...page.executions],
        cursor: page.next_cursor ?? null,
        total: page.total,
        more: 'idle',
      });
    } catch (error) {
      const message = failed(error);
      if (message !== null) setExtra({ ...feed, more: { error: message } });
    }
  };

  return (
    <div class="feed">
      <p class="note" aria-live="polite" data-testid="runs-count">
        {feed.executions.length} of {feed.total} {filtered ? 'matching runs' : 'runs'}, newest
        first.
      </p>
      <ol class="executions">
        {feed.executions.map((execution) => (
          <RunRow key={execution.id} execution={execution} webUrl={props.webUrl} />
        ))}
      </ol>
      {typeof feed.more === 'object' ? <ErrorState message={feed.more.error} /> : null}
      {feed.cursor !== null ? (
        <button type="button" onClick={loadMore} disabled={feed.more === 'loading'}>
          {feed.more === 'loading' ? 'Loading…' : 'Load more'}
        </button>
      ) : null}
    </div>
  );
}

/** One run of the feed: its verdict and figures, a link to its page, its commit and pull request. */
function RunRow(props: { execution: Execution; webUrl: string | null }) {
  const { execution, webUrl } = props;
  return (
    <li class="execution">
      <OutcomeTag execution={execution} />
      <span class="coverage">{formatCoverage(execution.coverage)}</span>
      <span class="delta">{formatComparison(execution)}</span>
      {execution.branches ? (
        <span class="branches">{formatRunBranches(execution.branches)}</span>
      ) : null}
      <span class="branch">{execution.branch}</span>
      {execution.component ? <span class="component-tag">{execution.component}</span> : null}
      {execution.commit ? <CommitRef sha={execution.commit} webUrl={webUrl} /> : null}
      {execution.pull_request !== undefined ? (
        <PullRequestRef number={execution.pull_request} webUrl={webUrl} />
      ) : null}
      <Link to={runPath(execution.repo, execution.id)} class="run-link">
        <time dateTime={execution.created_at}>{formatTimestamp(execution.created_at)}</time>
        <span class="visually-hidden"> run details</span>
      </Link>
    </li>
  );
}

const OUTCOME_CHOICES: readonly { value: Outcome | ''; label: string }[] = [
  { value: '', label: 'Any outcome' },
  { value: 'pass', label: 'Pass' },
  { value: 'warn', label: 'Warn' },
  { value: 'fail', label: 'Fail' },
  { value: 'skipped', label: 'Skipped' },
];

/** Sentinel of the component picker for "no filter" (a component name cannot start with `*`). */
const ANY = '*any';

/**
 * Branch, outcome and component filters of the runs. They live in the page's URL (a link
 * keeps them); the component also picks the headline's component.
 */
function Filters(props: { repo: string; filters: RunFilters; components: readonly string[] }) {
  const { filters } = props;
  const [branch, setBranch] = useState(filters.branch ?? '');
  useEffect(() => setBranch(filters.branch ?? ''), [filters.branch]);
  const go = (next: RunFilters) => navigate(repoPath(props.repo, next));
  const withBranch = (): RunFilters => {
    const { branch: _, ...rest } = filters;
    return branch.trim() ? { ...rest, branch: branch.trim() } : rest;
  };
  const components =
    filters.component && !props.components.includes(filters.component)
      ? [...props.components, filters.component]
      : props.components;
  return (
    <Form class="filter-row run-filters" label="Filter the runs" onSubmit={() => go(withBranch())}>
      <TextField
        label="Branch"
        type="text"
        name="branch"
        value={branch}
        placeholder="any branch"
        autoComplete="off"
        onValue={setBranch}
        onChange={() => go(withBranch())}
      />
      <label>
        Outcome
        <select
          name="outcome"
          value={filters.outcome ?? ''}
          onChange={(event) => {
            const value = (event.target as HTMLSelectElement).value as Outcome | '';
            const { outcome: _, ...rest } = withBranch();
            go(value ? { ...rest, outcome: value } : rest);
          }}
        >
          {OUTCOME_CHOICES.map((choice) => (
            <option key={choice.value} value={choice.value}>
              {choice.label}
            </option>
          ))}
        </select>
      </label>
      {components.length > 0 || filters.component !== undefined ? (
        <label>
          Component
          <select
            name="component"
            value={filters.component ?? ANY}
            onChange={(event) => {
              const value = (event.target as HTMLSelectElement).value;
              const { component: _, ...rest } = withBranch();
              go(value === ANY ? rest : { ...rest, component: value });
            }}
          >
            <option value={ANY}>All components</option>
            <option value="">No component</option>
            {components.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
      ) : null}
      {filtersQuery(filters) !== '' ? (
        <Link to={repoPath(props.repo)} class="clear-filters">
          Clear filters
        </Link>
      ) : null}
    </Form>
  );
}

/**
 * The repository's headline: its base branch's coverage now, the change over 30 days and the
 * last failing run, for the picked component (the runs without one when none is picked).
 */
function Headline(props: { repo: string; headline: Load<RepoHeadline>; onRetry: () => void }) {
  const { headline } = props;
  if (headline.state !== 'ready') {
    return <LoadStatus load={headline} what="the headline" onRetry={props.onRetry} />;
  }
  const { current, change_30d: change, last_failure: failure, base_branch: base } = headline.value;
  const scope = headline.value.component ? ` · ${headline.value.component}` : '';
  return (
    <section class="headline" aria-label="Headline" data-testid="headline">
      <div class="stat">
        <h2 class="stat-label">{base ? `${base}${scope} now` : `Base branch${scope}`}</h2>
        {current ? (
          <>
            <p class="stat-value" data-testid="headline-current">
              {formatCoverage(current.coverage)}
            </p>
            <p class="stat-note">
              <Link to={runPath(current.repo, current.id)}>
                run of {formatTimestamp(current.created_at)}
              </Link>
            </p>
          </>
        ) : (
          <p class="stat-note" data-testid="headline-current">
            {headline.value.components.length > 0 && !headline.value.component
              ? 'No main or master run without a component: pick a component below.'
              : 'No main or master run yet.'}
          </p>
        )}
      </div>
      <div class="stat">
        <h2 class="stat-label">Change over 30 days</h2>
        {change ? (
          <>
            <p class="stat-value" data-testid="headline-change">
              {formatPoints(change.change)}
            </p>
            <p class="stat-note">
              from{' '}
              <Link to={runPath(change.from.repo, change.from.id)}>
                {formatCoverage(change.from.coverage)} on {formatTimestamp(change.from.created_at)}
              </Link>
            </p>
          </>
        ) : (
          <p class="stat-note" data-testid="headline-change">
            Needs two base-branch runs.
          </p>
        )}
      </div>
      <div class="stat">
        <h2 class="stat-label">Last failing run</h2>
        {failure ? (
          <>
            <p class="stat-value stat-fail" data-testid="headline-failure">
              <Link to={runPath(failure.repo, failure.id)}>
                {formatTimestamp(failure.created_at)}
              </Link>
            </p>
            <p class="stat-note">
              on {failure.branch}
              {failure.pull_request !== undefined ? ` (pull request #${failure.pull_request})` : ''}
              , {formatCoverage(failure.coverage)}
            </p>
          </>
        ) : (
          <p class="stat-note" data-testid="headline-failure">
            No run has failed.
          </p>
        )}
      </div>
    </section>
  );
}
