import type { Invite, Member } from '@covgate/client';
import { ScrollTable } from '../../components/ScrollTable.js';
import { formatTimestamp } from '../../format.js';
import { arrangeInvites, memberName } from '../../roles.js';
import type { OpenDialog } from './dialogs.js';

/** The end of an invite's id (its random part), to tell invites made in one second apart. */
function inviteTag(invite: Invite): string {
  return invite.id.slice(-6);
}

function nameOf(members: readonly Member[], userId: string): string {
  const member = members.find((candidate) => candidate.user_id === userId);
  return member ? memberName(member) : userId;
}

/** The organisation's invites, pending first, each pending one with its **Revoke** button. */
export function InviteTable(props: {
  invites: readonly Invite[];
  /** The members, to name who accepted an invite. */
  members: readonly Member[];
  open: OpenDialog;
}) {
  const { members, open } = props;
  return (
    <ScrollTable
      class="invites"
      columns={['Role', 'Status', { label: 'Created', class: 'wide' }, 'Expires', 'Actions']}
    >
      {arrangeInvites(props.invites).map((invite) => (
        <tr key={invite.id} data-invite-id={invite.id}>
          <th scope="row">
            {invite.role}
            <span class="token-id">…{inviteTag(invite)}</span>
          </th>
          <td>
            <span class={`status status-${invite.status}`}>{invite.status}</span>
            {invite.status === 'accepted' && invite.accepted_by ? (
              <span class="until">by {nameOf(members, invite.accepted_by)}</span>
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
  );
}
