// An organisation's settings: the minimums no repository's policy can go below.
// The records and their store port; `../store.ts` joins the ports into `Store`.

/**
 * The settings an organisation's owners set for all its repositories: the lowest targets a
 * run is judged with, whatever its covgate.yml, its flags or its repository's settings say.
 */
export interface OrganisationSettings {
  orgId: string;
  /** The lowest patch target of every run (percent, 0..100), or null for none. */
  minPatchTarget: number | null;
  /** The lowest project target (absolute floor) of every run (percent, 0..100), or null. */
  minProjectTarget: number | null;
  /** The owner who last changed them. */
  updatedBy: string;
  updatedAt: Date;
}

/** Organisations' settings. */
export interface OrganisationSettingsStore {
  /** The organisation's settings, or null when none were ever saved. */
  findOrganisationSettings(orgId: string): Promise<OrganisationSettings | null>;
  /** Saves the organisation's settings, replacing earlier ones. */
  saveOrganisationSettings(settings: OrganisationSettings): Promise<void>;
}
