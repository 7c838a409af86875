import type { OrganisationLink, OrganisationLinkInput } from '@covgate/client';
import { useState } from 'preact/hooks';
import { Form, TextField } from '../../components/Form.js';
import type { Load } from '../../hooks.js';
import type { OpenDialog } from './dialogs.js';

type Host = OrganisationLink['host'];

/** What the section says of each code host's organisations. */
export const ORGANISATION_HOSTS: Record<
  Host,
  {
    name: string;
    option: string;
    noun: string;
    label: string;
    pattern: string;
    placeholder: string;
    scope: string;
  }
> = {
  github: {
    name: 'GitHub',
    option: 'GitHub',
    noun: 'GitHub organisation',
    label: 'GitHub organisation',
    pattern: '[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}',
    placeholder: 'e.g. acme-inc',
    scope: 'read:org',
  },
  gitlab: {
    name: 'GitLab',
    option: 'GitLab',
    noun: 'GitLab group',
    label: 'GitLab group path',
    pattern: '[A-Za-z0-9_][A-Za-z0-9_.\\-]*(/[A-Za-z0-9_][A-Za-z0-9_.\\-]*)*',
    placeholder: 'e.g. acme/platform',
    scope: 'read_api',
  },
  gitea: {
    name: 'Gitea',
    option: 'Gitea or Forgejo',
    noun: 'Gitea organisation',
    label: 'Gitea or Forgejo organisation',
    pattern: '[A-Za-z0-9_.\\-]{1,40}',
    placeholder: 'e.g. acme',
    scope: 'read:organization',
  },
};

/**
 * The organisation on a code host (a GitHub or Gitea organisation, a GitLab group) linked to
 * this one, if any; an owner links one (or replaces the link, whatever its host) and unlinks it.
 */
export function OrganisationLinkSection(props: {
  link: Load<OrganisationLink | null>;
  owner: boolean;
  busy: boolean;
  open: OpenDialog;
  onLink: (body: OrganisationLinkInput) => void;
}) {
  const { link, owner, open } = props;
  if (link.state !== 'ready') return null;
  const linked = link.value;
  const host = linked ? ORGANISATION_HOSTS[linked.host] : null;
  return (
    <>
      {linked && host ? (
        <div class="linked" data-testid="organisation-link">
          <p>
            Linked to the {host.noun} <strong>{linked.organisation}</strong>: its members join as{' '}
            <strong>member</strong> when they sign in through {host.name}, and leave at their next
            sign-in once they left it there.
          </p>
          {owner ? (
            <button
              type="button"
              class="danger"
              onClick={open((trigger) => ({ kind: 'unlink', link: linked, trigger }))}
            >
              Unlink
            </button>
          ) : null}
        </div>
      ) : (
        <p class="state empty" data-testid="organisation-link">
          Not linked to an organisation on a code host.
          {owner
            ? ' Link a GitHub or Gitea organisation or a GitLab group, and its members join as member when they sign in through that host.'
            : ''}
        </p>
      )}
      {owner ? (
        <LinkOrganisation
          busy={props.busy}
          initialHost={linked?.host ?? 'github'}
          linked={linked !== null}
          onLink={props.onLink}
        />
      ) : null}
    </>
  );
}

/** Choose the host and name its organisation to link (replacing the link there is). */
function LinkOrganisation(props: {
  busy: boolean;
  initialHost: Host;
  linked: boolean;
  onLink: (body: OrganisationLinkInput) => void;
}) {
  const [host, setHost] = useState<Host>(props.initialHost);
  const [name, setName] = useState('');
  const shown = ORGANISATION_HOSTS[host];
  return (
    <Form
      class="inline-form"
      label={`Link a ${shown.noun}`}
      onSubmit={() => {
        if (name.trim() !== '') props.onLink({ host, organisation: name.trim() });
      }}
    >
      <label>
        Code host
        <select
          name="organisation-host"
          value={host}
          onChange={(event) => setHost((event.target as HTMLSelectElement).value as Host)}
        >
          {(Object.keys(ORGANISATION_HOSTS) as Host[]).map((each) => (
            <option key={each} value={each}>
              {ORGANISATION_HOSTS[each].option}
            </option>
          ))}
        </select>
      </label>
      <TextField
        label={shown.label}
        name="organisation"
        value={name}
        required
        maxLength={1024}
        pattern={shown.pattern}
        placeholder={shown.placeholder}
        autoComplete="off"
        aria-describedby="organisation-hint"
        onValue={setName}
      />
      <button type="submit" disabled={props.busy}>
        {props.linked ? 'Replace link' : 'Link'}
      </button>
      <p class="hint form-hint" id="organisation-hint">
        Signing in through {shown.name} then asks for the {shown.scope} permission, to see who
        belongs.
      </p>
    </Form>
  );
}
