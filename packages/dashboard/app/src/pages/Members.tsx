import type { Invite, OrganisationLink, Role } from '@covgate/client';
import { ErrorState, LoadStatus } from '../components/ui.js';
import { useApp } from '../context.js';
import { type Load, useChanges, useDialog, useLoad } from '../hooks.js';
import { canManageMembers } from '../roles.js';
import type { Done, MembersDialog } from './members/dialogs.js';
import { CreateInvite, InvitePanel } from './members/InviteForms.js';
import { InviteTable } from './members/InviteTable.js';
import { MemberDialogs } from './members/MemberDialogs.js';
import { MemberTable } from './members/MemberTable.js';
import { MinimumsSection } from './members/MinimumsSection.js';
import { ORGANISATION_HOSTS, OrganisationLinkSection } from './members/OrganisationLinkSection.js';

/**
 * The organisation's members with their roles. Owners change roles, remove members, make
 * invite links (copied from the page, shown once) and revoke pending invites; every member
 * may leave. Its parts are in `members/`.
 */
export function Members() {
  const { client, session, signedOut } = useApp();
  const owner = canManageMembers(session.role);
  const { dialog, open, cancel, close } = useDialog<MembersDialog>();
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
  const [minimums, reloadMinimums] = useLoad(
    (signal) => client.getOrganisationSettings({ signal }),
    `${session.org_id}:${version}`,
  );
  // The list answers the link too (null when none): no request that could only 404.
  const organisationLink: Load<OrganisationLink | null> =
    members.state === 'ready' ? { state: 'ready', value: members.value.code_host_link } : members;
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
      <MemberDialogs dialog={dialog} busy={busy} onCancel={cancel} change={run} onLeave={leave} />

      <h2>Members</h2>
      <LoadStatus load={members} what="members" onRetry={reloadMembers} />
      {members.state === 'ready' ? (
        <MemberTable
          members={list}
          userId={session.user_id}
          org={session.org}
          owner={owner}
          open={open}
        />
      ) : null}

      <h2>Code host organisation</h2>
      <LoadStatus load={organisationLink} what="the linked organisation" onRetry={reloadMembers} />
      <OrganisationLinkSection
        link={organisationLink}
        owner={owner}
        busy={busy}
        open={open}
        onLink={(body) =>
          run(async () => {
            const linked = await client.linkOrganisation({ body });
            return {
              kind: 'notice',
              text: `Linked to ${linked.organisation}: its members join at their next ${ORGANISATION_HOSTS[linked.host].name} sign-in.`,
            };
          })
        }
      />

      <h2>Minimums</h2>
      <LoadStatus load={minimums} what="the minimums" onRetry={reloadMinimums} />
      <MinimumsSection
        settings={minimums}
        owner={owner}
        busy={busy}
        onSave={(body) =>
          run(async () => {
            const saved = await client.setOrganisationSettings({ body });
            return {
              kind: 'notice',
              text: `Minimums saved: patch ${saved.min_patch_target ?? 'none'}, project ${saved.min_project_target ?? 'none'}.`,
            };
          })
        }
      />

      {owner ? (
        <>
          <h2>Invites</h2>
          <LoadStatus load={invites} what="invites" onRetry={reloadInvites} />
          {invites.state === 'ready' && invites.value.invites.length === 0 ? (
            <p class="state empty">No invites yet. Create a link above for someone to join.</p>
          ) : null}
          {invites.state === 'ready' && invites.value.invites.length > 0 ? (
            <InviteTable invites={invites.value.invites} members={list} open={open} />
          ) : null}
        </>
      ) : null}
    </section>
  );
}

function rightsSentence(role: Role): string {
  switch (role) {
    case 'owner':
      return 'you manage members, invites, the minimums and API tokens.';
    case 'admin':
      return 'you manage API tokens; owners manage members.';
    default:
      return 'you read repositories and runs; admins and owners manage API tokens.';
  }
}
