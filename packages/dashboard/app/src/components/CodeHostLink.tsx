import {
  type CodeHostLink,
  type CodeHostLinkInput,
  CovgateApiError,
  type DeliveryFailure,
} from '@covgate/client';
import { useRef, useState } from 'preact/hooks';
import { useApp } from '../context.js';
import { formatTimestamp } from '../format.js';
import { useChanges, useLoad } from '../hooks.js';
import { canManageTokens } from '../roles.js';
import { Confirm } from './Confirm.js';
import { Form, TextField } from './Form.js';
import { ErrorState, LoadStatus } from './ui.js';

/** Where a person reads how to set the link up (the docs page of the feature). */
export const PULL_REQUEST_FEEDBACK_DOCS =
  'https://github.com/covgate/covgate/blob/main/docs/guide/pull-request-feedback.md';

/** GitHub's page that makes a fine-grained personal access token. */
const NEW_GITHUB_TOKEN = 'https://github.com/settings/personal-access-tokens/new';

type Host = CodeHostLink['host'];

/** What the form and the panel say of each code host. */
const HOSTS: Record<
  Host,
  {
    name: string;
    option: string;
    what: string;
    repoLabel: string;
    pattern: string;
    placeholder: string;
    defaultApiUrl: string | null;
    apiUrlLabel: string;
    apiUrlPlaceholder: string;
    docs: string;
  }
> = {
  github: {
    name: 'GitHub',
    option: 'GitHub',
    what: '',
    repoLabel: 'GitHub repository',
    pattern: '[A-Za-z0-9][A-Za-z0-9\\-]*/[A-Za-z0-9._\\-]+',
    placeholder: 'e.g. acme/shop-web',
    defaultApiUrl: 'https://api.github.com',
    apiUrlLabel: 'GitHub Enterprise API URL (optional)',
    apiUrlPlaceholder: 'e.g. https://github.example.com/api/v3',
    docs: PULL_REQUEST_FEEDBACK_DOCS,
  },
  gitlab: {
    name: 'GitLab',
    option: 'GitLab',
    what: 'the GitLab project ',
    repoLabel: 'GitLab project path',
    pattern: '[A-Za-z0-9_][A-Za-z0-9_.\\-]*(/[A-Za-z0-9_][A-Za-z0-9_.\\-]*)+',
    placeholder: 'e.g. acme/platform/shop-web',
    defaultApiUrl: 'https://gitlab.com/api/v4',
    apiUrlLabel: 'Self-managed GitLab API URL (optional)',
    apiUrlPlaceholder: 'e.g. https://gitlab.example.com/api/v4',
    docs: 'https://github.com/covgate/covgate/blob/main/docs/guide/gitlab-merge-requests.md',
  },
  gitea: {
    name: 'Gitea',
    option: 'Gitea or Forgejo',
    what: 'the Gitea repository ',
    repoLabel: 'Gitea or Forgejo repository',
    pattern: '[A-Za-z0-9_.\\-]+/[A-Za-z0-9_.\\-]+',
    placeholder: 'e.g. acme/shop-web',
    defaultApiUrl: null,
    apiUrlLabel: 'Gitea or Forgejo API URL',
    apiUrlPlaceholder: 'e.g. https://git.example.com/api/v1',
    docs: 'https://github.com/covgate/covgate/blob/main/docs/guide/gitea-pull-requests.md',
  },
};

/**
 * A code host's name as people know it (`GitHub`, `GitLab`, `Gitea`), undefined for a name
 * covgate does not know: the sign-in buttons and the run's file page say it too.
 */
export function codeHostName(host: string): string | undefined {
  return Object.hasOwn(HOSTS, host) ? HOSTS[host as Host].name : undefined;
}

/** What each kind of delivery is, for a person. */
export const DELIVERY_KIND_LABEL: Record<DeliveryFailure['kind'], string> = {
  status_project: 'Commit status covgate/project',
  status_patch: 'Commit status covgate/patch',
  comment: 'Pull request comment',
};

/**
 * The repository's "Pull request feedback" panel: its link to a repository on GitHub, GitLab
 * or Gitea (commit statuses and one comment per merge or pull request), the token's hint, the
 * latest deliveries the host refused, and, for admins and owners, the form that links,
 * replaces or unlinks.
 */
export function CodeHostLinkPanel(props: {
  repo: string;
  /** Whether the repository is linked, as its headline says (`code_host_link`). */
  linked: boolean;
}) {
  const { client, session } = useApp();
  const admin = canManageTokens(session.role);
  // What this panel changed since the headline was read: the link is read only when there is one.
  const [linkedNow, setLinkedNow] = useState<boolean | null>(null);
  const linked = linkedNow ?? props.linked;
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const {
    version,
    outcome: notice,
    busy,
    failure,
    change: run,
    notice: noticeRef,
  } = useChanges<string>({
    finish: () => {
      setEditing(false);
      setConfirming(false);
    },
    announce: (outcome) => outcome !== '',
  });
  const [link, reload] = useLoad<CodeHostLink | null>(
    (signal) =>
      admin && linked
        ? client
            .getCodeHostLink({ org: session.org, repo: props.repo, signal })
            .catch((error: unknown) => {
              // Unlinked since the headline was read (by someone else).
              if (error instanceof CovgateApiError && error.status === 404) return null;
              throw error;
            })
        : Promise.resolve(null),
    `${session.org_id}:${props.repo}:${admin}:${linked}:${version}`,
  );
  const unlinkButton = useRef<HTMLButtonElement>(null);

  return (
    <section class="github-link" aria-labelledby="pr-feedback-title" data-testid="pr-feedback">
      <h2 id="pr-feedback-title">Pull request feedback</h2>
      {!admin ? (
        <p class="state empty">
          Admins and owners link this repository to a GitHub repository (or a GitLab or Gitea one),
          so that each run sets the commit statuses covgate/project and covgate/patch and keeps one
          comment on its pull request up to date.
        </p>
      ) : null}
      {notice ? (
        <p class="state success" role="status" tabIndex={-1} ref={noticeRef}>
          {notice}
        </p>
      ) : null}
      {failure ? <ErrorState message={failure} /> : null}
      {admin ? <LoadStatus load={link} what="the code-host link" onRetry={reload} /> : null}
      {admin && link.state === 'ready' && link.value ? (
        <>
          <div class="linked" data-testid="repo-link">
            <p>
              Linked to {HOSTS[link.value.host].what}
              <strong>{link.value.repository}</strong>
              {link.value.api_url !== HOSTS[link.value.host].defaultApiUrl
                ? ` at ${link.value.api_url}`
                : ''}{' '}
              with the token <code class="token-hint">{link.value.token_hint}</code>, set{' '}
              {formatTimestamp(link.value.updated_at)}. Each run with a commit sets its commit
              statuses there, and{' '}
              {link.value.host === 'gitlab'
                ? "a merge request's run updates one note."
                : "a pull request's run updates one comment."}
            </p>
            <div class="buttons">
              <button type="button" onClick={() => setEditing(!editing)} aria-expanded={editing}>
                Replace token
              </button>
              <button
                type="button"
                class="danger"
                ref={unlinkButton}
                onClick={() => setConfirming(true)}
              >
                Unlink
              </button>
            </div>
          </div>
          <Failures failures={link.value.failures} host={HOSTS[link.value.host].name} />
        </>
      ) : null}
      {admin && link.state === 'ready' && !link.value ? (
        <p class="state empty" data-testid="repo-link">
          Not linked: pull requests get no commit status or comment from covgate.
        </p>
      ) : null}
      {admin && link.state === 'ready' && (!link.value || editing) ? (
        <LinkForm
          busy={busy}
          initialHost={link.value?.host ?? 'github'}
          initialRepo={link.value?.repository ?? ''}
          initialApiUrl={link.value?.api_url ?? ''}
          linked={link.value !== null}
          onSubmit={(body) =>
            run(async () => {
              const saved = await client.linkCodeHost({
                org: session.org,
                repo: props.repo,
                body,
              });
              setLinkedNow(true);
              return `Linked to ${HOSTS[saved.host].what}${saved.repository} with the token ${saved.token_hint}. The next run sets its statuses.`;
            })
          }
        />
      ) : null}
      {confirming && link.state === 'ready' && link.value ? (
        <Confirm
          title={`Unlink ${link.value.repository}?`}
          text={`covgate forgets the token and stops setting statuses and comments there. Statuses and comments already on ${HOSTS[link.value.host].name} stay.`}
          confirm="Unlink"
          busy={busy}
          onCancel={() => {
            setConfirming(false);
            unlinkButton.current?.focus();
          }}
          onConfirm={() =>
            run(async () => {
              const linked = (link.value as CodeHostLink).repository;
              await client.unlinkCodeHost({ org: session.org, repo: props.repo });
              setLinkedNow(false);
              return `${linked} is no longer linked; its token is deleted.`;
            })
          }
        />
      ) : null}
    </section>
  );
}

/** The latest deliveries the host refused or covgate gave up, with the host's reason. */
function Failures(props: { failures: DeliveryFailure[]; host: string }) {
  if (props.failures.length === 0)
    return <p class="note">No failed delivery: {props.host} accepted everything sent lately.</p>;
  return (
    <>
      <h3>Latest delivery failures</h3>
      <ul class="delivery-failures" data-testid="delivery-failures">
        {props.failures.map((failure) => (
          <li key={`${failure.execution_id}:${failure.kind}`}>
            <strong>{DELIVERY_KIND_LABEL[failure.kind]}</strong>
            {failure.status === null ? ' (no answer)' : ` (HTTP ${failure.status})`}:{' '}
            {failure.reason}{' '}
            <time class="failed-at" dateTime={failure.failed_at}>
              {formatTimestamp(failure.failed_at)}
            </time>
          </li>
        ))}
      </ul>
    </>
  );
}

/**
 * The code host, the repository's path there, its token and the API's URL (GitHub Enterprise,
 * a self-managed GitLab; required for Gitea and Forgejo).
 */
function LinkForm(props: {
  busy: boolean;
  linked: boolean;
  initialHost: Host;
  initialRepo: string;
  initialApiUrl: string;
  onSubmit: (body: CodeHostLinkInput) => void;
}) {
  const [host, setHost] = useState<Host>(props.initialHost);
  const [repository, setRepository] = useState(props.initialRepo);
  const [token, setToken] = useState('');
  const own = props.initialApiUrl !== '' && props.initialApiUrl !== HOSTS[host].defaultApiUrl;
  const [apiUrl, setApiUrl] = useState(own ? props.initialApiUrl : '');
  const shown = HOSTS[host];
  return (
    <Form
      class="link-form"
      label={`Link a ${shown.name} repository`}
      onSubmit={() =>
        props.onSubmit({
          host,
          repository: repository.trim(),
          token: token.trim(),
          ...(apiUrl.trim() ? { api_url: apiUrl.trim() } : {}),
        })
      }
    >
      <label>
        Code host
        <select
          name="code-host"
          value={host}
          onChange={(event) => setHost((event.target as HTMLSelectElement).value as Host)}
        >
          {(Object.keys(HOSTS) as Host[]).map((each) => (
            <option key={each} value={each}>
              {HOSTS[each].option}
            </option>
          ))}
        </select>
      </label>
      <TextField
        label={shown.repoLabel}
        name="code-host-repository"
        value={repository}
        required
        maxLength={host === 'gitlab' ? 1024 : 140}
        pattern={shown.pattern}
        placeholder={shown.placeholder}
        autoComplete="off"
        spellcheck={false}
        onValue={setRepository}
      />
      <TextField
        label="Token"
        name="code-host-token"
        type="password"
        value={token}
        required
        maxLength={255}
        autoComplete="off"
        spellcheck={false}
        aria-describedby="code-host-token-hint"
        onValue={setToken}
      />
      <div class="hint form-hint" id="code-host-token-hint">
        <TokenHint host={host} />
        <p>
          covgate stores it encrypted and never shows it again.{' '}
          <a href={shown.docs} target="_blank" rel="noopener noreferrer">
            How to set it up
          </a>
        </p>
      </div>
      <TextField
        label={shown.apiUrlLabel}
        name="code-host-api-url"
        type="url"
        value={apiUrl}
        required={shown.defaultApiUrl === null}
        placeholder={shown.apiUrlPlaceholder}
        autoComplete="off"
        onValue={setApiUrl}
      />
      <button type="submit" class="primary" disabled={props.busy}>
        {props.busy ? 'Saving…' : props.linked ? 'Save new token' : 'Link repository'}
      </button>
    </Form>
  );
}

/** The token each host needs, with the permissions covgate uses. */
function TokenHint(props: { host: Host }) {
  if (props.host === 'gitlab') {
    return (
      <p>
        A project access token (or a group access token) with the role Developer and the scope api:
        covgate sets commit statuses and one merge request note with it.
      </p>
    );
  }
  if (props.host === 'gitea') {
    return (
      <p>
        An access token with the scopes write:repository (commit statuses) and write:issue (the pull
        request comment).
      </p>
    );
  }
  return (
    <>
      <p>
        A{' '}
        <a href={NEW_GITHUB_TOKEN} target="_blank" rel="noopener noreferrer">
          fine-grained personal access token
        </a>{' '}
        for this repository only, with these repository permissions:
      </p>
      <ul class="permissions">
        <li>Commit statuses: Read and write</li>
        <li>Pull requests: Read and write</li>
        <li>Metadata: Read (GitHub adds it)</li>
      </ul>
    </>
  );
}
