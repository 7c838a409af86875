import type { Member } from '@covgate/client';
import { ScrollTable } from '../../components/ScrollTable.js';
import { formatTimestamp } from '../../format.js';
import { isLastOwner, memberName } from '../../roles.js';
import type { OpenDialog } from './dialogs.js';

/**
 * The members with their roles and what the viewer may do to each: an owner changes roles
 * and removes members, anyone leaves; the only owner can do neither.
 */
export function MemberTable(props: {
  members: readonly Member[];
  /** The viewer's user id and organisation slug. */
  userId: string;
  org: string;
  owner: boolean;
  open: OpenDialog;
}) {
  const { members, userId, org, owner, open } = props;
  return (
    <ScrollTable
      class="members"
      columns={['Member', 'Role', { label: 'Joined', class: 'wide' }, 'Actions']}
    >
      {members.map((member) => {
        const self = member.user_id === userId;
        const onlyOwner = isLastOwner(members, member.user_id);
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
                      aria-label={self ? `Leave ${org}` : `Remove ${name}`}
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
  );
}
