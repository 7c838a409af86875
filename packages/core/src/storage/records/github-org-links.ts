// Organisations linked to a GitHub organisation, whose members may join.
// The records and their store port; `../store.ts` joins the ports into `Store`.

/** A covgate organisation linked to a GitHub organisation, whose members join as `member`. */
export interface GithubOrgLink {
  orgId: string;
  /** The GitHub organisation's login, in lower case (GitHub compares them without case). */
  githubOrg: string;
  /** The owner who linked it. */
  linkedBy: string;
  linkedAt: Date;
}

/** Links of organisations to GitHub organisations (at most one each way). */
export interface GithubOrgLinkStore {
  /**
   * Links the organisation to `link.githubOrg`, replacing its previous link; `taken` (nothing
   * changed) when another organisation is linked to that GitHub organisation.
   */
  linkGithubOrg(link: GithubOrgLink): Promise<'done' | 'taken'>;
  findGithubOrgLink(orgId: string): Promise<GithubOrgLink | null>;
  /** Every link, by GitHub organisation (a GitHub sign-in checks each). */
  listGithubOrgLinks(): Promise<GithubOrgLink[]>;
  /** Removes the organisation's link; false when it had none. Members stay. */
  unlinkGithubOrg(orgId: string): Promise<boolean>;
}
