import type { CurrentSession } from '@covgate/client';
import { useState } from 'preact/hooks';
import { useApp } from '../context.js';
import { useAction } from '../hooks.js';
import { navigate } from '../router.js';
import { Form } from './Form.js';

/**
 * The organisation the session acts for, with its plan and the user's role; a picker and a
 * **Switch** button when the user belongs to more than one (no new sign-in). A switch goes
 * to the new organisation's repositories.
 */
export function OrgSwitcher() {
  const { client, session, sessionChanged } = useApp();
  const [chosen, setChosen] = useState(session.org);
  const { busy, failure, run } = useAction();
  const role = (
    <span class="role" data-testid="role" title={`your role in ${session.org}`}>
      {session.role}
    </span>
  );
  if (session.organisations.length < 2) {
    return (
      <span class="org-area">
        <span class="org" title={`plan: ${session.plan}`}>
          {session.org} <span class="plan">{session.plan}</span>
        </span>
        {role}
      </span>
    );
  }

  const switchTo = async () => {
    if (chosen === session.org) return;
    await run(async () => {
      const next: CurrentSession = await client.switchOrganisation({ body: { org: chosen } });
      navigate('/');
      sessionChanged(next);
      // The picker is drawn anew for the new organisation: focus goes to the page's content.
      window.requestAnimationFrame(() => document.getElementById('main')?.focus());
    });
  };

  return (
    <Form class="org-switch" label="Switch organisation" onSubmit={switchTo}>
      <label class="visually-hidden" for="org-select">
        Organisation
      </label>
      <select
        id="org-select"
        name="org"
        value={chosen}
        onChange={(event) => setChosen((event.target as HTMLSelectElement).value)}
      >
        {session.organisations.map((org) => (
          <option key={org.org_id} value={org.org}>
            {org.name === org.org ? org.org : `${org.name} (${org.org})`} · {org.role}
          </option>
        ))}
      </select>
      <button type="submit" disabled={busy || chosen === session.org}>
        {busy ? 'Switching…' : 'Switch'}
      </button>
      {role}
      {failure ? (
        <p class="switch-error" role="alert">
          {failure}
        </p>
      ) : null}
    </Form>
  );
}
