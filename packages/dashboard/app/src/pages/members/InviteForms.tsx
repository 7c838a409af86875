import type { CreatedInvite, Role } from '@covgate/client';
import { useEffect, useRef, useState } from 'preact/hooks';
import { Form } from '../../components/Form.js';
import { CopyButton } from '../../components/ui.js';
import { formatTimestamp } from '../../format.js';
import { RoleSelect } from './RoleSelect.js';

/** Pick a role and make an invite link. */
export function CreateInvite(props: { busy: boolean; onCreate: (role: Role) => void }) {
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
export function InvitePanel(props: { invite: CreatedInvite }) {
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
