import type { CodeHostKind } from './repository-links.js';

// Organisations linked to an organisation on a code host (a GitLab group), whose members join.
// The records and their store port; `../store.ts` joins the ports into `Store`.

/**
 * A covgate organisation linked to an organisation on a code host: a GitHub or Gitea
 * organisation, a GitLab group. Its members join as `member` when they sign in through that
 * host, and those who joined so leave when the host no longer lists them.
 */
export interface OrganisationLink {
  orgId: string;
  /** The code host the linked organisation lives on. */
  host: CodeHostKind;
  /**
   * The organisation's path on its host, in lower case (every host compares them without
   * case): a GitHub or Gitea organisation's name, a GitLab group's full path (`a/b/c`).
   */
  organisation: string;
  /** The owner who linked it. */
  linkedBy: string;
  linkedAt: Date;
}

/**
 * Links of organisations to organisations on code hosts: one per organisation, and one per
 * host organisation.
 */
export interface OrganisationLinkStore {
  /**
   * Links the organisation to `link.organisation` on `link.host`, replacing its previous link
   * (whatever its host); `taken` (nothing changed) when another organisation is linked to that
   * host organisation.
   */
  linkOrganisation(link: OrganisationLink): Promise<'done' | 'taken'>;
  findOrganisationLink(orgId: string): Promise<OrganisationLink | null>;
  /** The links to organisations on `host`, by their path (a sign-in through it checks each). */
  listOrganisationLinks(host: CodeHostKind): Promise<OrganisationLink[]>;
  /** Removes the organisation's link; false when it had none. Members stay. */
  unlinkOrganisation(orgId: string): Promise<boolean>;
}
