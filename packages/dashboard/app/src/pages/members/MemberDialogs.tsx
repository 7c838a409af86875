import { Confirm } from '../../components/Confirm.js';
import { useApp } from '../../context.js';
import { memberName } from '../../roles.js';
import type { Done, MembersDialog } from './dialogs.js';
import { ORGANISATION_HOSTS } from './OrganisationLinkSection.js';
import { RoleDialog } from './RoleSelect.js';

/**
 * The open dialog of the members page, if any, with the change it confirms: a new role,
 * removing a member (or leaving), unlinking the GitHub organisation, revoking an invite.
 */
export function MemberDialogs(props: {
  dialog: MembersDialog | null;
  busy: boolean;
  onCancel: () => void;
  /** Makes a change and says what it did. */
  change: (work: () => Promise<Done>) => void;
  /** Leaves the organisation: the session ends with it. */
  onLeave: () => void;
}) {
  const { client, session, sessionChanged } = useApp();
  const { dialog, busy, onCancel, change } = props;
  switch (dialog?.kind) {
    case 'role':
      return (
        <RoleDialog
          member={dialog.member}
          busy={busy}
          onCancel={onCancel}
          onConfirm={(role) =>
            change(async () => {
              await client.changeMemberRole({ user_id: dialog.member.user_id, body: { role } });
              if (dialog.member.user_id === session.user_id) {
                // One's own role changed: the whole app follows it (tokens, members).
                sessionChanged(await client.getCurrentSession());
              }
              return { kind: 'notice', text: `${memberName(dialog.member)} is now ${role}.` };
            })
          }
        />
      );
    case 'remove':
      return dialog.member.user_id === session.user_id ? (
        <Confirm
          title={`Leave ${session.org}?`}
          text="You lose access to its repositories at once, and this session ends. An owner can invite you again."
          confirm="Leave organisation"
          busy={busy}
          onCancel={onCancel}
          onConfirm={props.onLeave}
        />
      ) : (
        <Confirm
          title={`Remove ${memberName(dialog.member)}?`}
          text="Their sessions in this organisation stop working at their next request. The organisation's API tokens keep working."
          confirm="Remove member"
          busy={busy}
          onCancel={onCancel}
          onConfirm={() =>
            change(async () => {
              await client.removeMember({ user_id: dialog.member.user_id });
              return { kind: 'notice', text: `${memberName(dialog.member)} was removed.` };
            })
          }
        />
      );
    case 'unlink':
      return (
        <Confirm
          title={`Unlink the ${ORGANISATION_HOSTS[dialog.link.host].noun} ${dialog.link.organisation}?`}
          text={`Its members stop joining at their ${ORGANISATION_HOSTS[dialog.link.host].name} sign-in. Those who joined through it stay members; remove them here if they should go.`}
          confirm="Unlink"
          busy={busy}
          onCancel={onCancel}
          onConfirm={() =>
            change(async () => {
              await client.unlinkOrganisation();
              return { kind: 'notice', text: `${dialog.link.organisation} is no longer linked.` };
            })
          }
        />
      );
    case 'revoke':
      return (
        <Confirm
          title={`Revoke the ${dialog.invite.role} invite?`}
          text="Its link stops working at once. Nobody has joined with it yet."
          confirm="Revoke invite"
          busy={busy}
          onCancel={onCancel}
          onConfirm={() =>
            change(async () => {
              await client.revokeInvite({ id: dialog.invite.id });
              return { kind: 'notice', text: `The ${dialog.invite.role} invite was revoked.` };
            })
          }
        />
      );
    default:
      return null;
  }
}
