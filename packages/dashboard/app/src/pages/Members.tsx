import type { CreatedInvite, GithubLink, Invite, Member, Role } from '@covgate/client';
import { useEffect, useRef, useState } from 'preact/hooks';
import { Confirm } from '../components/Confirm.js';
import { Form, TextField } from '../components/Form.js';
import { ScrollTable } from '../components/ScrollTable.js';
import { CopyButton, ErrorState, LoadStatus } from '../components/ui.js';
import { useApp } from '../context.js';
import { formatTimestamp } from '../format.js';
import { type Load, useChanges, useDialog, useLoad } from '../hooks.js';
import {
  arrangeInvites,
  canManageMembers,
  isLastOwner,
  memberName,
  ROLE_RIGHTS,
  ROLES,
} from '../roles.js';

/** A dialog open on the members page, and the button that opened it (focus goes back there). */
type Dialog =
  | { kind: 'role'; member: Member; trigger: HTMLElement | null }
  | { kind: 'remove'; member: Member; trigger: HTMLElement | null }
  | { kind: 'revoke'; invite: Invite; trigger: HTMLElement | null }
  | { kind: 'unlink'; link: GithubLink; trigger: HTMLElement | null };

/** What the last change did, said in a notice that takes focus. */
type Done = { kind: 'invited'; invite: CreatedInvite } | { kind: 'notice'; text: string };

/**
 * The organisation's members with their roles. Owners change roles, remove members, make
 * invite links (copied from the page, shown once) and revoke pending invites; every member
 * may leave.
 */
export function Members() {
  const { client, session, signedOut, sessionChanged } = useApp();
  const owner = canManageMembers(session.role);
  const { dialog, open, cancel, close } = useDialog<Dialog>();
  const {
    version,
    outcome: done,
    busy,
    failure,
    run: runAction,
    change: run,
    notice,
  } = useChanges<Done>({ finish: close, announce: (outcome) => outcome.kind === 'notice' });
  const [members, reloadMembers] = useLoad(
    (signal) => client.listMembers({ signal }),
    `${session.org_id}:${version}`,
  );
  const [invites, reloadInvites] = useLoad(
    (signal) =>
      owner ? client.listInvites({ signal }) : Promise.resolve({ invites: [] as Invite[] }),
    `${session.org_id}:${owner}:${version}`,
  );
  // The list answers the GitHub link too (null when none): no request that could only 404.
  const githubLink: Load<GithubLink | null> =
    members.state === 'ready' ? { state: 'ready', value: members.value.github_link } : members;
  const leave = () =>
    runAction(async () => {
      await client.removeMember({ user_id: session.user_id });
      // The session belonged to the membership: it stops working from the next request.
      signedOut(`You left ${session.org}. Sign in again to use another organisation.`);
    });

  const list = members.state === 'ready' ? members.value.members : [];
  return (
    <section aria-labelledby="members-title">
      <h1 id="members-title">Members</h1>
      <p>
        The people of <strong>{session.org}</strong>. You are{' '}
        <strong data-testid="own-role">{session.role}</strong>: {rightsSentence(session.role)}
      </p>
      {owner ? (
        <CreateInvite
          busy={busy}
          onCreate={(role) =>
            run(async () => ({
              kind: 'invited',
              invite: await client.createInvite({ body: { role } }),
            }))
          }
        />
      ) : null}
      {failure ? <ErrorState message={failure} /> : null}
      {done?.kind === 'invited' ? <InvitePanel key={done.invite.id} invite={done.invite} /> : null}
      {done?.kind === 'notice' ? (
        <p class="state notice" role="status" tabIndex={-1} ref={notice}>
          {done.text}
        </p>
      ) : null}
      {dialog?.kind === 'role' ? (
        <RoleDialog
          member={dialog.member}
          busy={busy}
          onCancel={cancel}
          onConfirm={(role) =>
            run(async () => {
              await client.changeMemberRole({ user_id: dialog.member.user_id, body: { role } });
              if (dialog.member.user_id === session.user_id) {
                // One's own role changed: the whole app follows it (tokens, members).
                sessionChanged(await client.getCurrentSession());
              }
              return { kind: 'notice', text: `${memberName(dialog.member)} is now ${role}.` };
            })
          }
        />
      ) : null}
      {dialog?.kind === 'remove' ? (
        dialog.member.user_id === session.user_id ? (
          <Confirm
            title={`Leave ${session.org}?`}
            text="You lose access to its repositories at once, and this session ends. An owner can invite you again."
            confirm="Leave organisation"
            busy={busy}
            onCancel={cancel}
            onConfirm={leave}
          />
        ) : (
          <Confirm
            title={`Remove ${memberName(dialog.member)}?`}
            text="Their sessions in this organisation stop working at their next request. The organisation's API tokens keep working."
            confirm="Remove member"
            busy={busy}
            onCancel={cancel}
            onConfirm={() =>
              run(async () => {
                await client.removeMember({ user_id: dialog.member.user_id });
                return { kind: 'notice', text: `${memberName(dialog.member)} was removed.` };
              })
            }
          />
        )
      ) : null}
      {dialog?.kind === 'unlink' ? (
        <Confirm
          title={`Unlink the GitHub organisation ${dialog.link.github_org}?`}
          text="Its members stop joining at their GitHub sign-in. Those who joined through it stay members; remove them here if they should go."
          confirm="Unlink"
          busy={busy}
          onCancel={cancel}
          onConfirm={() =>
            run(async () => {
              await client.unlinkGithubOrganisation();
              return { kind: 'notice', text: `${dialog.link.github_org} is no longer linked.` };
            })
          }
        />
      ) : null}
      {dialog?.kind === 'revoke' ? (
        <Confirm
          title={`Revoke the ${dialog.invite.role} invite?`}
          text="Its link stops working at once. Nobody has joined with it yet."
          confirm="Revoke invite"
          busy={busy}
          onCancel={cancel}
          onConfirm={() =>
            run(async () => {
              await client.revokeInvite({ id: dialog.invite.id });
              return { kind: 'notice', text: `The ${dialog.invite.role} invite was revoked.` };
            })
          }
        />
      ) : null}

      <h2>Members</h2>
      <LoadStatus load={members} what="members" onRetry={reloadMembers} />
      {members.state === 'ready' ? (
        <ScrollTable
          class="members"
          columns={['Member', 'Role', { label: 'Joined', class: 'wide' }, 'Actions']}
        >
          {list.map((member) => {
            const self = member.user_id === session.user_id;
            const onlyOwner = isLastOwner(list, member.user_id);
            const name = memberName(member);
            return (
              <tr key={member.user_id} data-user-id={member.user_id}>
                <th scope="row">
                  {name}
                  {self ? <span class="you"> (you)</span> : null}
                  {member.login ? <span class="token-id">{member.user_id}</span> : null}
                </th>
                <td>
                  <span class={`role role-${member.role}`}>{member.role}</span>
                </td>
                <td class="wide">{formatTimestamp(member.joined_at)}</td>
                <td>
                  {onlyOwner ? (
                    <span class="hint">the only owner: cannot leave or be demoted</span>
                  ) : (
                    <div class="actions">
                      {owner ? (
                        <button
                          type="button"
                          onClick={open((trigger) => ({ kind: 'role', member, trigger }))}
                          aria-label={`Change the role of ${name}`}
                        >
                          Change role
                        </button>
                      ) : null}
                      {owner || self ? (
                        <button
                          type="button"
                          class="danger"
                          onClick={open((trigger) => ({ kind: 'remove', member, trigger }))}
                          aria-label={self ? `Leave ${session.org}` : `Remove ${name}`}
                        >
                          {self ? 'Leave' : 'Remove'}
                        </button>
                      ) : null}
                    </div>
                  )}
                </td>
              </tr>
            );
          })}
        </ScrollTable>
      ) : null}

      <h2>GitHub organisation</h2>
      <LoadStatus load={githubLink} what="the GitHub organisation" onRetry={reloadMembers} />
      {githubLink.state === 'ready' && githubLink.value ? (
        <div class="linked" data-testid="github-link">
          <p>
            Linked to the GitHub organisation <strong>{githubLink.value.github_org}</strong>: its
            members join as <strong>member</strong> when they sign in through GitHub, and leave at
            their next sign-in once they left it there.
          </p>
          {owner ? (
            <button
              type="button"
              class="danger"
              onClick={open((trigger) => ({
                kind: 'unlink',
                link: githubLink.value as GithubLink,
                trigger,
              }))}
            >
              Unlink
            </button>
          ) : null}
        </div>
      ) : null}
      {githubLink.state === 'ready' && !githubLink.value ? (
        <p class="state empty" data-testid="github-link">
          Not linked to a GitHub organisation.
          {owner
            ? ' Link one, and its members join as member when they sign in through GitHub.'
            : ''}
        </p>
      ) : null}
      {owner && githubLink.state === 'ready' ? (
        <LinkGithub
          busy={busy}
          linked={githubLink.value !== null}
          onLink={(githubOrg) =>
            run(async () => {
              const linked = await client.linkGithubOrganisation({
                body: { github_org: githubOrg },
              });
              return {
                kind: 'notice',
                text: `Linked to ${linked.github_org}: its members join at their next GitHub sign-in.`,
              };
            })
          }
        />
      ) : null}

      {owner ? (
        <>
          <h2>Invites</h2>
          <LoadStatus load={invites} what="invites" onRetry={reloadInvites} />
          {invites.state === 'ready' && invites.value.invites.length === 0 ? (
            <p class="state empty">No invites yet. Create a link above for someone to join.</p>
          ) : null}
          {invites.state === 'ready' && invites.value.invites.length > 0 ? (
            <ScrollTable
              class="invites"
              columns={[
                'Role',
                'Status',
                { label: 'Created', class: 'wide' },
                'Expires',
                'Actions',
              ]}
            >
              {arrangeInvites(invites.value.invites).map((invite) => (
                <tr key={invite.id} data-invite-id={invite.id}>
                  <th scope="row">
                    {invite.role}
                    <span class="token-id">…{inviteTag(invite)}</span>
                  </th>
                  <td>
                    <span class={`status status-${invite.status}`}>{invite.status}</span>
                    {invite.status === 'accepted' && invite.accepted_by ? (
                      <span class="until">by {nameOf(list, invite.accepted_by)}</span>
                    ) : null}
                  </td>
                  <td class="wide">{formatTimestamp(invite.created_at)}</td>
                  <td>{formatTimestamp(invite.expires_at)}</td>
                  <td>
                    {invite.status === 'pending' ? (
                      <button
                        type="button"
                        class="danger"
                        onClick={open((trigger) => ({ kind: 'revoke', invite, trigger }))}
                        aria-label={`Revoke the ${invite.role} invite …${inviteTag(invite)}`}
                      >
                        Revoke
                      </button>
                    ) : null}
                  </td>
                </tr>
              ))}
            </ScrollTable>
          ) : null}
        </>
      ) : null}
    </section>
  );
}

function rightsSentence(role: Role): string {
  switch (role) {
    case 'owner':
      return 'you manage members, invites and API tokens.';
    case 'admin':
      return 'you manage API tokens; owners manage members.';
    default:
      return 'you read repositories and runs; admins and owners manage API tokens.';
  }
}

/** The end of an invite's id (its random part), to tell invites made in one second apart. */
function inviteTag(invite: Invite): string {
  return invite.id.slice(-6);
}

function nameOf(members: readonly Member[], userId: string): string {
  const member = members.find((candidate) => candidate.user_id === userId);
  return member ? memberName(member) : userId;
}

/** Name the GitHub organisation to link (replacing the link there is). */
function LinkGithub(props: {
  busy: boolean;
  linked: boolean;
  onLink: (githubOrg: string) => void;
}) {
  const [name, setName] = useState('');
  return (
    <Form
      class="inline-form"
      label="Link a GitHub organisation"
      onSubmit={() => {
        if (name.trim() !== '') props.onLink(name.trim());
      }}
    >
      <TextField
        label="GitHub organisation"
        name="github-org"
        value={name}
        required
        maxLength={39}
        placeholder="e.g. acme-inc"
        autoComplete="off"
        aria-describedby="github-org-hint"
        onValue={setName}
      />
      <button type="submit" disabled={props.busy}>
        {props.linked ? 'Replace link' : 'Link'}
      </button>
      <p class="hint form-hint" id="github-org-hint">
        Signing in through GitHub then asks for the read:org permission, to see who belongs.
      </p>
    </Form>
  );
}

/** Pick a role and make an invite link. */
function CreateInvite(props: { busy: boolean; onCreate: (role: Role) => void }) {
  const [role, setRole] = useState<Role>('member');
  return (
    <Form class="inline-form" label="Invite someone" onSubmit={() => props.onCreate(role)}>
      <RoleSelect
        label="Role of the invited person"
        name="invite-role"
        role={role}
        onChange={setRole}
      />
      <button type="submit" class="primary" disabled={props.busy}>
        {props.busy ? 'Creating…' : 'Create invite link'}
      </button>
    </Form>
  );
}

/** The invite link, shown once, with a copy button. */
function InvitePanel(props: { invite: CreatedInvite }) {
  const ref = useRef<HTMLElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <section class="secret" aria-label="New invite link" tabIndex={-1} ref={ref}>
      <h3>Invite link for a new {props.invite.role}</h3>
      <p class="warning">
        <strong>Copy it now</strong> and send it to the person you invite. covgate shows it only
        this once; it works once, until {formatTimestamp(props.invite.expires_at)}.
      </p>
      <div class="code-block">
        <code class="secret-value" data-testid="invite-url">
          {props.invite.url}
        </code>
        <CopyButton text={props.invite.url} label="invite link" />
      </div>
    </section>
  );
}

/** The role picker of a member's **Change role** dialog. */
function RoleDialog(props: {
  member: Member;
  busy: boolean;
  onCancel: () => void;
  onConfirm: (role: Role) => void;
}) {
  const [role, setRole] = useState<Role>(props.member.role);
  return (
    <Confirm
      title={`Change the role of ${memberName(props.member)}`}
      text={`${memberName(props.member)} is ${props.member.role} now. The new role counts from their next request.`}
      confirm="Change role"
      busy={props.busy}
      onCancel={props.onCancel}
      onConfirm={() => props.onConfirm(role)}
      tone="primary"
    >
      <RoleSelect label="New role" name="role" role={role} onChange={setRole} />
    </Confirm>
  );
}

/** A labelled choice of role, each with what it may do. */
function RoleSelect(props: {
  label: string;
  name: string;
  role: Role;
  onChange: (role: Role) => void;
}) {
  return (
    <label>
      {props.label}
      <select
        name={props.name}
        value={props.role}
        onChange={(event) => props.onChange((event.target as HTMLSelectElement).value as Role)}
      >
        {ROLES.map((choice) => (
          <option key={choice} value={choice}>
            {choice}: {ROLE_RIGHTS[choice]}
          </option>
        ))}
      </select>
    </label>
  );
}
