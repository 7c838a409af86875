import type { Token } from '@covgate/client';
import { useState } from 'preact/hooks';
import { Confirm } from '../components/Confirm.js';
import { Form, TextField } from '../components/Form.js';
import { ScrollTable } from '../components/ScrollTable.js';
import { ErrorState, Link, LoadStatus, SecretPanel } from '../components/ui.js';
import { useApp } from '../context.js';
import { formatTimestamp } from '../format.js';
import { useChanges, useDialog, useLoad } from '../hooks.js';
import { canManageTokens } from '../roles.js';

const GRACE_CHOICES = [
  { seconds: 0, label: 'none: the old token stops at once' },
  { seconds: 3600, label: '1 hour' },
  { seconds: 86_400, label: '24 hours' },
  { seconds: 604_800, label: '7 days' },
] as const;

/** A dialog open for a token, and the button that opened it (focus goes back there). */
type Dialog =
  | { kind: 'rotate'; token: Token; trigger: HTMLElement | null }
  | { kind: 'revoke'; token: Token; trigger: HTMLElement | null };

type Result =
  | { kind: 'created'; name: string; secret: string }
  | { kind: 'rotated'; name: string; secret: string; graceEndsAt: string; oldStatus: string }
  | { kind: 'revoked'; label: string };

/** The start of a token's id, shown beside its name: what tells apart two tokens of one name. */
function idPrefix(token: Token): string {
  return token.id.slice(0, 8);
}

/** `“ci” (1a2b3c4d)`: a token as dialogs and notices name it. */
function tokenLabel(token: Token): string {
  return `“${token.name}” (${idPrefix(token)})`;
}

/** `created 2026-03-01 12:00 UTC, active`: what else tells a token from its namesakes. */
function tokenFacts(token: Token): string {
  const until =
    token.status === 'rotating' && token.grace_period_ends_at
      ? ` until ${formatTimestamp(token.grace_period_ends_at)}`
      : '';
  return `created ${formatTimestamp(token.created_at)}, ${token.status}${until}`;
}

/**
 * API tokens: list, create, rotate with a grace period, revoke with confirmation; for a
 * `member`, whom the API refuses every token route, a notice saying who manages them.
 */
export function Tokens() {
  const { session } = useApp();
  if (!canManageTokens(session.role)) return <TokensForMember />;
  return <TokenManagement />;
}

function TokensForMember() {
  const { session } = useApp();
  return (
    <section aria-labelledby="tokens-title">
      <h1 id="tokens-title">API tokens</h1>
      <p class="state notice" data-testid="tokens-member">
        You are a <strong>member</strong> of {session.org}: you read its repositories and runs. Its
        admins and owners create, rotate and revoke the API tokens CI jobs use; see who they are on
        the <Link to="/members">members page</Link>.
      </p>
    </section>
  );
}

function TokenManagement() {
  const { client } = useApp();
  const { dialog, open, cancel, close } = useDialog<Dialog>();
  const {
    version,
    outcome: result,
    busy,
    failure,
    change: run,
    notice,
  } = useChanges<Result>({ finish: close, announce: (done) => done.kind === 'revoked' });
  const [tokens, reload] = useLoad((signal) => client.listTokens({ signal }), String(version));

  return (
    <section aria-labelledby="tokens-title">
      <h1 id="tokens-title">API tokens</h1>
      <p>
        CI jobs send a token with the <code>execute</code> scope to record their runs. Rotate a
        token to replace it without breaking running jobs; revoke it when it may have leaked.
      </p>
      <CreateToken
        busy={busy}
        onCreate={(name) =>
          run(async () => {
            const created = await client.createToken({ body: { name } });
            return { kind: 'created', name: created.name, secret: created.secret };
          })
        }
      />
      {failure ? <ErrorState message={failure} /> : null}
      {result?.kind === 'created' ? (
        <SecretPanel
          key={result.secret}
          secret={result.secret}
          title={`New token “${result.name}”`}
        />
      ) : null}
      {result?.kind === 'rotated' ? (
        <SecretPanel
          key={result.secret}
          secret={result.secret}
          title={`New secret for “${result.name}”`}
        >
          <p>
            {result.oldStatus === 'revoked'
              ? 'The old token was revoked at once.'
              : `The old token keeps working until ${formatTimestamp(result.graceEndsAt)}.`}
          </p>
        </SecretPanel>
      ) : null}
      {result?.kind === 'revoked' ? (
        <p class="state notice" role="status" tabIndex={-1} ref={notice}>
          Token {result.label} revoked: requests with it are refused from now on.
        </p>
      ) : null}
      {dialog?.kind === 'rotate' ? (
        <RotateDialog
          token={dialog.token}
          busy={busy}
          onCancel={cancel}
          onConfirm={(grace) =>
            run(async () => {
              const rotated = await client.rotateToken({
                id: dialog.token.id,
                body: { grace_period_seconds: grace },
              });
              return {
                kind: 'rotated',
                name: dialog.token.name,
                secret: rotated.secret,
                graceEndsAt: rotated.grace_period_ends_at,
                oldStatus: rotated.old_token_status,
              };
            })
          }
        />
      ) : null}
      {dialog?.kind === 'revoke' ? (
        <Confirm
          title={`Revoke ${tokenLabel(dialog.token)}?`}
          text={`This token, ${tokenFacts(dialog.token)}, is refused at every request from now on. This cannot be undone.`}
          confirm="Revoke token"
          busy={busy}
          onCancel={cancel}
          onConfirm={() =>
            run(async () => {
              await client.revokeToken({ id: dialog.token.id });
              return { kind: 'revoked', label: tokenLabel(dialog.token) };
            })
          }
        />
      ) : null}
      <h2>Tokens</h2>
      <LoadStatus load={tokens} what="tokens" onRetry={reload} />
      {tokens.state === 'ready' && tokens.value.tokens.length === 0 ? (
        <p class="state empty">No tokens yet. Create one above for your CI.</p>
      ) : null}
      {tokens.state === 'ready' && tokens.value.tokens.length > 0 ? (
        <ScrollTable
          class="tokens"
          columns={[
            'Name',
            'Status',
            { label: 'Created', class: 'wide' },
            { label: 'Last used', class: 'wide' },
            'Actions',
          ]}
        >
          {tokens.value.tokens.map((token) => (
            <tr key={token.id} data-token-id={token.id}>
              <th scope="row">
                {token.name}
                <span class="token-id">{idPrefix(token)}</span>
              </th>
              <td>
                <span class={`status status-${token.status}`}>{token.status}</span>
                {token.status === 'rotating' && token.grace_period_ends_at ? (
                  <span class="until">until {formatTimestamp(token.grace_period_ends_at)}</span>
                ) : null}
              </td>
              <td class="wide">{formatTimestamp(token.created_at)}</td>
              <td class="wide">
                {token.last_used_at ? formatTimestamp(token.last_used_at) : 'never'}
              </td>
              <td>
                <div class="actions">
                  {token.status === 'active' ? (
                    <button
                      type="button"
                      onClick={open((trigger) => ({ kind: 'rotate', token, trigger }))}
                      aria-label={`Rotate ${token.name} (${idPrefix(token)})`}
                    >
                      Rotate
                    </button>
                  ) : null}
                  {token.status !== 'revoked' ? (
                    <button
                      type="button"
                      class="danger"
                      onClick={open((trigger) => ({ kind: 'revoke', token, trigger }))}
                      aria-label={`Revoke ${token.name} (${idPrefix(token)})`}
                    >
                      Revoke
                    </button>
                  ) : null}
                </div>
              </td>
            </tr>
          ))}
        </ScrollTable>
      ) : null}
    </section>
  );
}

/** Name a new token. */
export function CreateToken(props: {
  busy: boolean;
  onCreate: (name: string) => void;
  defaultName?: string;
  label?: string;
}) {
  const [name, setName] = useState(props.defaultName ?? '');
  return (
    <Form
      class="inline-form"
      onSubmit={() => {
        if (name.trim() !== '') props.onCreate(name.trim());
      }}
    >
      <TextField
        label="Token name"
        name="token-name"
        value={name}
        maxLength={100}
        required
        placeholder="e.g. ci"
        onValue={setName}
      />
      <button type="submit" class="primary" disabled={props.busy}>
        {props.busy ? 'Creating…' : (props.label ?? 'Create token')}
      </button>
    </Form>
  );
}

function RotateDialog(props: {
  token: Token;
  busy: boolean;
  onCancel: () => void;
  onConfirm: (graceSeconds: number) => void;
}) {
  const [grace, setGrace] = useState(86_400);
  return (
    <Confirm
      title={`Rotate ${tokenLabel(props.token)}?`}
      text={`This token, ${tokenFacts(props.token)}, gets a new secret with the same name and scopes. The old one keeps working for the grace period, so CI jobs can switch without failing.`}
      confirm="Rotate token"
      busy={props.busy}
      onCancel={props.onCancel}
      onConfirm={() => props.onConfirm(grace)}
    >
      <label>
        Grace period of the old token
        <select
          name="grace"
          value={String(grace)}
          onChange={(event) => setGrace(Number((event.target as HTMLSelectElement).value))}
        >
          {GRACE_CHOICES.map((choice) => (
            <option key={choice.seconds} value={String(choice.seconds)}>
              {choice.label}
            </option>
          ))}
        </select>
      </label>
    </Confirm>
  );
}
