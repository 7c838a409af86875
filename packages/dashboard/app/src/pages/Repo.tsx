import type { Execution, ExecutionSeries } from '@covgate/client';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { describeError, isSignedOut } from '../api.js';
import { runsOf } from '../chart-data.js';
import { HistoryChart } from '../components/Chart.js';
import { CodeBlock, ErrorState, Link, Loading, OutcomeTag } from '../components/ui.js';
import { useApp } from '../context.js';
import {
  badgeMarkdown,
  formatComparison,
  formatCoverage,
  formatTimestamp,
  pickBaseBranch,
} from '../format.js';
import { useLoad } from '../hooks.js';
import { href } from '../router.js';

/** Records drawn at most: the newest ones when a repository has more (one request). */
export const HISTORY_LIMIT = 1000;
const FEED_PAGE = 20;

/**
 * One repository: history chart, badge, executions feed. The chart's runs come in one
 * request (`GET /v1/executions/series`), so the page costs three: session, series, feed.
 * A repository without any run is unknown: it only exists through its runs.
 */
export function Repo(props: { repo: string }) {
  const { client, session } = useApp();
  const [history, reload] = useLoad<ExecutionSeries>(
    (signal) =>
      client.getExecutionSeries({
        org: session.org,
        repo: props.repo,
        limit: HISTORY_LIMIT,
        signal,
      }),
    props.repo,
  );
  const runs = useMemo(
    () => (history.state === 'ready' ? runsOf(history.value.points) : []),
    [history],
  );
  const notFound = history.state === 'ready' && history.value.total === 0;
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

  const badge = client.badgeUrl({ org: session.org, repo: props.repo });
  const page = new URL(href(`/repos/${encodeURIComponent(props.repo)}`), window.location.href).href;

  return (
    <section aria-labelledby="repo-title">
      <p class="crumbs">
        <Link to="/">Repositories</Link> /
      </p>
      <h1 id="repo-title">{props.repo}</h1>
      <h2>Coverage history</h2>
      {history.state === 'loading' ? <Loading what="the coverage history" /> : null}
      {history.state === 'error' ? <ErrorState message={history.message} onRetry={reload} /> : null}
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
      <h2>Runs</h2>
      <Feed repo={props.repo} />
    </section>
  );
}

type FeedState = {
  executions: Execution[];
  cursor: string | null;
  total: number;
  more: 'idle' | 'loading' | { error: string };
};

/** The executions feed, newest first, paged with the API's cursor. */
function Feed(props: { repo: string }) {
  const { client, session, signedOut } = useApp();
  const [extra, setExtra] = useState<FeedState | null>(null);
  const [first, reload] = useLoad(async (signal) => {
    setExtra(null);
    const page = await client.listExecutions({
      org: session.org,
      repo: props.repo,
      limit: FEED_PAGE,
      cursor: '',
      signal,
    });
    return page;
  }, props.repo);

  if (first.state === 'loading') return <Loading what="runs" />;
  if (first.state === 'error') return <ErrorState message={first.message} onRetry={reload} />;
  const feed: FeedState = extra ?? {
    executions: first.value.executions,
    cursor: first.value.next_cursor ?? null,
    total: first.value.total,
    more: 'idle',
  };
  if (feed.executions.length === 0) return <p class="state empty">No runs yet.</p>;

  const loadMore = async () => {
    if (feed.cursor === null) return;
    setExtra({ ...feed, more: 'loading' });
    try {
      const page = await client.listExecutions({
        org: session.org,
        repo: props.repo,
        limit: FEED_PAGE,
        cursor: feed.cursor,
      });
      setExtra({
        executions: [...feed.executions, ...page.executions],
        cursor: page.next_cursor ?? null,
        total: page.total,
        more: 'idle',
      });
    } catch (error) {
      if (isSignedOut(error)) signedOut();
      else setExtra({ ...feed, more: { error: describeError(error) } });
    }
  };

  return (
    <div class="feed">
      <p class="note" aria-live="polite">
        {feed.executions.length} of {feed.total} runs, newest first.
      </p>
      <ol class="executions">
        {feed.executions.map((execution) => (
          <li key={execution.id} class="execution">
            <OutcomeTag execution={execution} />
            <span class="coverage">{formatCoverage(execution.coverage)}</span>
            <span class="delta">{formatComparison(execution)}</span>
            <span class="branch">{execution.branch}</span>
            {execution.commit ? <code class="commit">{execution.commit.slice(0, 7)}</code> : null}
            <time dateTime={execution.created_at}>{formatTimestamp(execution.created_at)}</time>
          </li>
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
