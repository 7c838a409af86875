import type { GithubLink } from '@covgate/client';
import { useState } from 'preact/hooks';
import { Form, TextField } from '../../components/Form.js';
import type { Load } from '../../hooks.js';
import type { OpenDialog } from './dialogs.js';

/**
 * The GitHub organisation linked to this one, if any; an owner links one (or replaces the
 * link) and unlinks it.
 */
export function GithubOrgSection(props: {
  link: Load<GithubLink | null>;
  owner: boolean;
  busy: boolean;
  open: OpenDialog;
  onLink: (githubOrg: string) => void;
}) {
  const { link, owner, open } = props;
  if (link.state !== 'ready') return null;
  const linked = link.value;
  return (
    <>
      {linked ? (
        <div class="linked" data-testid="github-link">
          <p>
            Linked to the GitHub organisation <strong>{linked.github_org}</strong>: its members join
            as <strong>member</strong> when they sign in through GitHub, and leave at their next
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
        <p class="state empty" data-testid="github-link">
          Not linked to a GitHub organisation.
          {owner
            ? ' Link one, and its members join as member when they sign in through GitHub.'
            : ''}
        </p>
      )}
      {owner ? (
        <LinkGithub busy={props.busy} linked={linked !== null} onLink={props.onLink} />
      ) : null}
    </>
  );
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
