import { ErrorState, Link, Loading, OutcomeTag } from '../components/ui.js';
import { useApp } from '../context.js';
import { formatCoverage, formatTimestamp } from '../format.js';
import { useLoad } from '../hooks.js';
import { Onboarding } from './Onboarding.js';

/** The organisation's repositories with their latest run; onboarding when there is none. */
export function Repos() {
  const { client, session } = useApp();
  const [repos, reload] = useLoad(
    (signal) => client.listRepositories({ org: session.org, signal }),
    session.org,
  );
  if (repos.state === 'loading') return <Loading what="repositories" />;
  if (repos.state === 'error') return <ErrorState message={repos.message} onRetry={reload} />;
  if (repos.value.repos.length === 0) return <Onboarding first />;
  return (
    <section aria-labelledby="repos-title">
      <div class="title-row">
        <h1 id="repos-title">Repositories</h1>
        <Link to="/onboarding" class="button">
          Add a repository
        </Link>
      </div>
      <div class="table-scroll">
        <table class="repos">
          <thead>
            <tr>
              <th scope="col">Repository</th>
              <th scope="col">Coverage</th>
              <th scope="col">Outcome</th>
              <th scope="col" class="wide">
                Latest run
              </th>
              <th scope="col" class="wide">
                Runs
              </th>
              <th scope="col" class="wide">
                Badge
              </th>
            </tr>
          </thead>
          <tbody>
            {repos.value.repos.map((repo) => (
              <tr key={repo.repo}>
                <th scope="row">
                  <Link to={`/repos/${encodeURIComponent(repo.repo)}`}>{repo.repo}</Link>
                </th>
                <td class="number">{formatCoverage(repo.latest.coverage)}</td>
                <td>
                  <OutcomeTag outcome={repo.latest.outcome} />
                </td>
                <td class="wide">
                  {repo.latest.branch} · {formatTimestamp(repo.latest.created_at)}
                </td>
                <td class="wide number">{repo.total}</td>
                <td class="wide">
                  <img
                    src={client.badgeUrl({ org: session.org, repo: repo.repo })}
                    alt={`${repo.repo} coverage badge`}
                    height={20}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
