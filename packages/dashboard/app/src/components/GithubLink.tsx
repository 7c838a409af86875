import {
  CovgateApiError,
  type DeliveryFailure,
  type RepositoryLink,
  type RepositoryLinkInput,
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

/** What each kind of delivery is, for a person. */
export const DELIVERY_KIND_LABEL: Record<DeliveryFailure['kind'], string> = {
  status_project: 'Commit status covgate/project',
  status_patch: 'Commit status covgate/patch',
  comment: 'Pull request comment',
};

/**
 * The repository's "Pull request feedback" panel: its link to a GitHub repository (commit
 * statuses and one comment per pull request), the token's hint, the latest deliveries GitHub
 * refused, and, for admins and owners, the form that links, replaces or unlinks.
 */
export function GithubLinkPanel(props: { repo: string }) {
  const { client, session } = useApp();
  const admin = canManageTokens(session.role);
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
  const [link, reload] = useLoad<RepositoryLink | null>(
    (signal) =>
      admin
        ? client
            .getRepositoryLink({ org: session.org, repo: props.repo, signal })
            .catch((error: unknown) => {
              // No link is a 404: the repository is simply not linked.
              if (error instanceof CovgateApiError && error.status === 404) return null;
              throw error;
            })
        : Promise.resolve(null),
    `${session.org_id}:${props.repo}:${admin}:${version}`,
  );
  const unlinkButton = useRef<HTMLButtonElement>(null);

  return (
    <section class="github-link" aria-labelledby="pr-feedback-title" data-testid="pr-feedback">
      <h2 id="pr-feedback-title">Pull request feedback</h2>
      {!admin ? (
        <p class="state empty">
          Admins and owners link this repository to a GitHub repository, so that each run sets the
          commit statuses covgate/project and covgate/patch and keeps one comment on its pull
          request up to date.
        </p>
      ) : null}
      {notice ? (
        <p class="state success" role="status" tabIndex={-1} ref={noticeRef}>
          {notice}
        </p>
      ) : null}
      {failure ? <ErrorState message={failure} /> : null}
      {admin ? <LoadStatus load={link} what="the GitHub link" onRetry={reload} /> : null}
      {admin && link.state === 'ready' && link.value ? (
        <>
          <div class="linked" data-testid="repo-link">
            <p>
              Linked to <strong>{link.value.github_repo}</strong>
              {link.value.api_url !== 'https://api.github.com' ? ` at ${link.value.api_url}` : ''}{' '}
              with the token <code class="token-hint">{link.value.token_hint}</code>, set{' '}
              {formatTimestamp(link.value.updated_at)}. Each run with a commit sets its commit
              statuses there, and a pull request's run updates one comment.
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
          <Failures failures={link.value.failures} />
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
          initialRepo={link.value?.github_repo ?? ''}
          initialApiUrl={link.value?.api_url ?? ''}
          linked={link.value !== null}
          onSubmit={(body) =>
            run(async () => {
              const saved = await client.linkRepository({
                org: session.org,
                repo: props.repo,
                body,
              });
              return `Linked to ${saved.github_repo} with the token ${saved.token_hint}. The next run sets its statuses.`;
            })
          }
        />
      ) : null}
      {confirming && link.state === 'ready' && link.value ? (
        <Confirm
          title={`Unlink ${link.value.github_repo}?`}
          text="covgate forgets the token and stops setting statuses and comments there. Statuses and comments already on GitHub stay."
          confirm="Unlink"
          busy={busy}
          onCancel={() => {
            setConfirming(false);
            unlinkButton.current?.focus();
          }}
          onConfirm={() =>
            run(async () => {
              const github = (link.value as RepositoryLink).github_repo;
              await client.unlinkRepository({ org: session.org, repo: props.repo });
              return `${github} is no longer linked; its token is deleted.`;
            })
          }
        />
      ) : null}
    </section>
  );
}

/** The latest deliveries GitHub refused or covgate gave up, with GitHub's reason. */
function Failures(props: { failures: DeliveryFailure[] }) {
  if (props.failures.length === 0)
    return <p class="note">No failed delivery: GitHub accepted everything sent lately.</p>;
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

/** The GitHub repository, its token and, for GitHub Enterprise, the API's URL. */
function LinkForm(props: {
  busy: boolean;
  linked: boolean;
  initialRepo: string;
  initialApiUrl: string;
  onSubmit: (body: RepositoryLinkInput) => void;
}) {
  const [githubRepo, setGithubRepo] = useState(props.initialRepo);
  const [token, setToken] = useState('');
  const enterprise = props.initialApiUrl !== '' && props.initialApiUrl !== 'https://api.github.com';
  const [apiUrl, setApiUrl] = useState(enterprise ? props.initialApiUrl : '');
  return (
    <Form
      class="link-form"
      label="Link a GitHub repository"
      onSubmit={() =>
        props.onSubmit({
          github_repo: githubRepo.trim(),
          token: token.trim(),
          ...(apiUrl.trim() ? { api_url: apiUrl.trim() } : {}),
        })
      }
    >
      <TextField
        label="GitHub repository"
        name="github-repo"
        value={githubRepo}
        required
        maxLength={140}
        pattern="[A-Za-z0-9][A-Za-z0-9\-]*/[A-Za-z0-9._\-]+"
        placeholder="e.g. acme/shop-web"
        autoComplete="off"
        spellcheck={false}
        onValue={setGithubRepo}
      />
      <TextField
        label="Token"
        name="github-token"
        type="password"
        value={token}
        required
        maxLength={255}
        autoComplete="off"
        spellcheck={false}
        aria-describedby="github-token-hint"
        onValue={setToken}
      />
      <div class="hint form-hint" id="github-token-hint">
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
        <p>
          covgate stores it encrypted and never shows it again.{' '}
          <a href={PULL_REQUEST_FEEDBACK_DOCS} target="_blank" rel="noopener noreferrer">
            How to set it up
          </a>
        </p>
      </div>
      <TextField
        label="GitHub Enterprise API URL (optional)"
        name="github-api-url"
        type="url"
        value={apiUrl}
        placeholder="e.g. https://github.example.com/api/v3"
        autoComplete="off"
        onValue={setApiUrl}
      />
      <button type="submit" class="primary" disabled={props.busy}>
        {props.busy ? 'Saving…' : props.linked ? 'Save new token' : 'Link repository'}
      </button>
    </Form>
  );
}
