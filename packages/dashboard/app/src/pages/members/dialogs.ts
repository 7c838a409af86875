import type { CreatedInvite, Invite, Member, OrganisationLink } from '@covgate/client';
import type { DialogState } from '../../hooks.js';

/** A dialog open on the members page, and the button that opened it (focus goes back there). */
export type MembersDialog =
  | { kind: 'role'; member: Member; trigger: HTMLElement | null }
  | { kind: 'remove'; member: Member; trigger: HTMLElement | null }
  | { kind: 'revoke'; invite: Invite; trigger: HTMLElement | null }
  | { kind: 'unlink'; link: OrganisationLink; trigger: HTMLElement | null };

/** What the last change did, said in a notice that takes focus. */
export type Done = { kind: 'invited'; invite: CreatedInvite } | { kind: 'notice'; text: string };

/** Opens a dialog of the members page from the button clicked. */
export type OpenDialog = DialogState<MembersDialog>['open'];
