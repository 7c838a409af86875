import type { Repository } from '@covgate/client';
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { TextField } from '../components/Form.js';
import { Link, LoadStatus, OutcomeTag } from '../components/ui.js';
import { useApp } from '../context.js';
import { formatCoverage, formatTimestamp } from '../format.js';
import { useLoad } from '../hooks.js';
import {
  arrangeRepos,
  DEFAULT_REPO_SORT,
  nextSort,
  type RepoSort,
  type RepoSortKey,
  shownRun,
} from '../repo-list.js';
import { canManageTokens } from '../roles.js';
import { Onboarding } from './Onboarding.js';

/** A column header that orders the table, saying its order to screen readers. */
function SortHeader(props: {
  label: string;
  sortKey: RepoSortKey;
  sort: RepoSort;
  onSort: (key: RepoSortKey) => void;
  class?: string;
  children?: ComponentChildren;
}) {
  const active = props.sort.key === props.sortKey;
  const order = active ? (props.sort.descending ? 'descending' : 'ascending') : 'none';
  return (
    <th scope="col" class={props.class} aria-sort={order}>
      <button type="button" class="sort" onClick={() => props.onSort(props.sortKey)}>
        {props.label}
        <span class="sort-mark" aria-hidden="true">
          {active ? (props.sort.descending ? ' ▼' : ' ▲') : ''}
        </span>
      </button>
    </th>
  );
}

/**
 * The organisation's repositories with the coverage of their base branch (`main`, else
 * `master`), searchable and sortable; onboarding when there is none.
 */
export function Repos() {
  const { client, session } = useApp();
  const [repos, reload] = useLoad(
    (signal) => client.listRepositories({ org: session.org, signal }),
    session.org,
  );
  const [query, setQuery] = useState('');
  const [sort, setSort] = useState<RepoSort>(DEFAULT_REPO_SORT);
  if (repos.state !== 'ready') {
    return <LoadStatus load={repos} what="repositories" onRetry={reload} />;
  }
  if (repos.value.repos.length === 0) {
    return canManageTokens(session.role) ? <Onboarding first /> : <NoRepositories />;
  }
  const rows = arrangeRepos(repos.value.repos, query, sort);
  const onSort = (key: RepoSortKey) => setSort((current) => nextSort(current, key));
  return (
    <section aria-labelledby="repos-title">
      <div class="title-row">
        <h1 id="repos-title">Repositories</h1>
        {canManageTokens(session.role) ? (
          <Link to="/onboarding" class="button">
            Add a repository
          </Link>
        ) : null}
      </div>
      <div class="filter-row">
        <TextField
          label="Search repositories"
          type="search"
          name="search"
          value={query}
          placeholder="part of a name"
          onValue={setQuery}
        />
        <p class="note" aria-live="polite" data-testid="repo-count">
          {rows.length === repos.value.repos.length
            ? `${rows.length} ${rows.length === 1 ? 'repository' : 'repositories'}`
            : `${rows.length} of ${repos.value.repos.length} repositories`}
        </p>
      </div>
      {rows.length === 0 ? (
        <p class="state empty">No repository name contains “{query.trim()}”.</p>
      ) : (
        <div class="table-scroll">
          <table class="repos">
            <thead>
              <tr>
                <SortHeader label="Repository" sortKey="name" sort={sort} onSort={onSort} />
                <th scope="col">Branch</th>
                <SortHeader label="Coverage" sortKey="coverage" sort={sort} onSort={onSort} />
                <th scope="col">Outcome</th>
                <SortHeader
                  label="Latest run"
                  sortKey="activity"
                  sort={sort}
                  onSort={onSort}
                  class="wide"
                />
                <th scope="col" class="wide">
                  Runs
                </th>
                <th scope="col" class="wide">
                  Badge
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((repo) => (
                <RepoRow key={repo.repo} repo={repo} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** A `member` cannot make the wizard's token: the empty list says who can add a repository. */
function NoRepositories() {
  const { session } = useApp();
  return (
    <section aria-labelledby="repos-title">
      <h1 id="repos-title">Repositories</h1>
      <p class="state empty" data-testid="no-repos">
        No run is recorded in {session.org} yet. A repository appears here with its first run; an
        admin or owner sets one up with a token for its CI.
      </p>
    </section>
  );
}

function RepoRow(props: { repo: Repository }) {
  const { client, session } = useApp();
  const { repo } = props;
  const shown = shownRun(repo);
  const branch = shown.branch === 'main' ? {} : { branch: shown.branch };
  return (
    <tr>
      <th scope="row">
        <Link to={`/repos/${encodeURIComponent(repo.repo)}`}>{repo.repo}</Link>
      </th>
      <td class="branch">
        {shown.branch}
        {repo.base === null ? <span class="hint">no main or master run</span> : null}
      </td>
      <td class="number">{formatCoverage(shown.coverage)}</td>
      <td>
        <OutcomeTag execution={shown} />
      </td>
      <td class="wide">
        {repo.latest.branch} · {formatTimestamp(repo.latest.created_at)}
      </td>
      <td class="wide number">{repo.total}</td>
      <td class="wide">
        <img
          src={client.badgeUrl({ org: session.org, repo: repo.repo, ...branch })}
          alt={`${repo.repo} coverage badge`}
          height={20}
        />
      </td>
    </tr>
  );
}
