import { CovgateApiError, type FileLines, type FileSource } from '@covgate/client';
import { useEffect, useMemo } from 'preact/hooks';
import { codeHostName } from '../components/CodeHostLink.js';
import { PathText } from '../components/RunTables.js';
import { ErrorState, Link, Loading } from '../components/ui.js';
import { useApp } from '../context.js';
import { useLoad } from '../hooks.js';
import { type LineRow, lineRows, missedChangedRanges, rangeText } from '../line-view.js';
import { href, repoPath, runFilePath, runPath } from '../router.js';
import { formatLines, formatPercent, percentOf } from '../run-format.js';

/** The file's lines, or the API's reason for none (`not found`, `no line data for this file in this run`). */
type FileAnswer = { lines: FileLines } | { missing: string };

/** A file's answer when retention deleted the run's line data (`410`). */
const PRUNED = 'pruned';

/**
 * A file of a run: each line covered, missed or not coverable, the lines the run's patch
 * changed marked, and the source beside them when the repository is linked to its code host
 * (fetched after the lines, so they never wait for it).
 */
export function RunFile(props: { repo: string; id: string; path: string }) {
  const { client } = useApp();
  const key = `${props.id}\u0000${props.path}`;
  const [file, reload] = useLoad<FileAnswer>(
    (signal) =>
      client.getExecutionFile({ id: props.id, path: props.path, signal }).then(
        (lines) => ({ lines }),
        (error: unknown) => {
          if (error instanceof CovgateApiError && (error.status === 404 || error.status === 410)) {
            return { missing: error.status === 410 ? PRUNED : error.message };
          }
          throw error;
        },
      ),
    key,
  );
  const [source] = useLoad<FileSource | null>(
    (signal) =>
      client
        .getExecutionFileSource({ id: props.id, path: props.path, signal })
        .catch((error: unknown) => {
          if (error instanceof CovgateApiError && (error.status === 404 || error.status === 410)) {
            return null;
          }
          throw error;
        }),
    key,
  );
  useEffect(() => {
    document.title = `${props.path} in a run of ${props.repo} · covgate`;
  }, [props.path, props.repo]);

  const crumbs = (
    <p class="crumbs">
      <Link to="/">Repositories</Link> / <Link to={repoPath(props.repo)}>{props.repo}</Link> /{' '}
      <Link to={runPath(props.repo, props.id)}>Run {props.id}</Link> /
    </p>
  );
  const title = (
    <h1 id="file-title" class="file-title">
      <PathText path={props.path} />
    </h1>
  );
  if (file.state === 'loading') {
    return (
      <section aria-labelledby="file-title">
        {crumbs}
        {title}
        <Loading what="the file’s lines" />
      </section>
    );
  }
  if (file.state === 'error') {
    return (
      <section aria-labelledby="file-title">
        {crumbs}
        {title}
        {file.unreachable ? null : <ErrorState message={file.message} onRetry={reload} />}
      </section>
    );
  }
  if ('missing' in file.value) {
    return (
      <section aria-labelledby="file-title">
        {crumbs}
        {title}
        <p class="state empty" data-testid="file-no-lines">
          {file.value.missing === 'not found'
            ? 'No such run is recorded in this organisation.'
            : file.value.missing === PRUNED
              ? 'The line data of this run was deleted by the server’s retention setting: covgate keeps its figures, not its lines.'
              : 'This run sent no line data for this file: covgate knows its counts only (an older CLI, or a run over the size limit, sends none).'}
        </p>
        <p>
          <Link to={runPath(props.repo, props.id)}>Back to the run</Link>
        </p>
      </section>
    );
  }
  return (
    <section aria-labelledby="file-title" class="run-file">
      {crumbs}
      {title}
      <FileLinesView
        lines={file.value.lines}
        source={source}
        pageHref={href(runFilePath(props.repo, props.id, props.path))}
      />
    </section>
  );
}

function sourceNote(source: ReturnType<typeof useLoad<FileSource | null>>[0]): string | null {
  if (source.state === 'loading') return 'Loading the source from the code host…';
  if (source.state === 'error') return `Source not shown: ${source.message}. Line numbers only.`;
  const value = source.value;
  if (value === null) return 'Source not shown. Line numbers only.';
  if (value.unavailable !== null)
    return `Source not shown: ${value.unavailable.message}. Line numbers only.`;
  return `Source from ${codeHostName(value.host ?? '') ?? 'the code host'} at commit ${value.commit?.slice(0, 7) ?? ''}.`;
}

function FileLinesView(props: {
  lines: FileLines;
  source: ReturnType<typeof useLoad<FileSource | null>>[0];
  /** This page's URL path: a bare `#L12` would resolve against `<base href>`, another page. */
  pageHref: string;
}) {
  const { lines, source } = props;
  const text = source.state === 'ready' ? (source.value?.text ?? null) : null;
  const rows = useMemo(() => lineRows(lines, text), [lines, text]);
  const missed = useMemo(() => missedChangedRanges(rows), [rows]);
  const note = sourceNote(source);
  return (
    <>
      <dl class="figures file-figures">
        <div>
          <dt>Lines covered</dt>
          <dd class="number" data-testid="file-lines">
            {formatLines(lines.covered, lines.coverable)} (
            {formatPercent(percentOf(lines.covered, lines.coverable))})
          </dd>
        </div>
        <div>
          <dt>Changed lines covered</dt>
          <dd class="number" data-testid="file-patch">
            {lines.patch_coverable === null || lines.patch_covered === null
              ? 'no patch sent'
              : lines.patch_coverable === 0
                ? 'no coverable line changed'
                : `${formatLines(lines.patch_covered, lines.patch_coverable)} (${formatPercent(percentOf(lines.patch_covered, lines.patch_coverable))})`}
          </dd>
        </div>
      </dl>
      {missed.length > 0 ? (
        <p class="note" data-testid="file-missed-changed">
          Changed lines no test ran:{' '}
          {missed.map((range, index) => (
            <span key={range[0]}>
              {index > 0 ? ', ' : ''}
              <a href={`${props.pageHref}#L${range[0]}`}>{rangeText(range)}</a>
            </span>
          ))}
        </p>
      ) : null}
      <p
        class={`note source-note${source.state === 'ready' && text !== null ? '' : ' source-missing'}`}
        role="status"
        data-testid="file-source-note"
      >
        {note}
      </p>
      <p class="legend" aria-hidden="true">
        <span class="line-mark mark-covered">covered</span>
        <span class="line-mark mark-missed">missed</span>
        <span class="line-mark mark-none">not coverable</span>
        <span class="line-change">changed</span> by the patch
      </p>
      <LineTable rows={rows} withText={text !== null} />
    </>
  );
}

const MARK_WORD: Record<LineRow['state'], string> = {
  covered: 'covered',
  missed: 'missed',
  none: '',
};

function LineTable(props: { rows: readonly LineRow[]; withText: boolean }) {
  return (
    <div class="line-table-wrap">
      <table
        class={props.withText ? 'line-table' : 'line-table numbers-only'}
        aria-label="The file’s lines"
      >
        <thead>
          <tr>
            <th scope="col" class="number">
              Line
            </th>
            <th scope="col">Coverage</th>
            <th scope="col">Patch</th>
            {props.withText ? <th scope="col">Source</th> : null}
          </tr>
        </thead>
        <tbody>
          {props.rows.map((row) => (
            <tr
              key={row.number}
              id={`L${row.number}`}
              class={`line line-${row.state}${row.changed ? ' line-changed' : ''}`}
            >
              <th scope="row" class="number line-number">
                {row.number}
              </th>
              <td class={`line-mark mark-${row.state}`}>{MARK_WORD[row.state]}</td>
              <td class="line-change">{row.changed ? 'changed' : ''}</td>
              {props.withText ? (
                <td class="line-text">
                  <code>{row.text}</code>
                </td>
              ) : null}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
