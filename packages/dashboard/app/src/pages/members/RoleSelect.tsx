import type { Member, Role } from '@covgate/client';
import { useState } from 'preact/hooks';
import { Confirm } from '../../components/Confirm.js';
import { memberName, ROLE_RIGHTS, ROLES } from '../../roles.js';

/** A labelled choice of role, each with what it may do. */
export function RoleSelect(props: {
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

/** The role picker of a member's **Change role** dialog. */
export function RoleDialog(props: {
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
