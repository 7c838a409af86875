import type { OrganisationSettings } from '@covgate/core';
import { wholeSeconds } from '@covgate/core/storage-kit';
import { eq } from 'drizzle-orm';
import type { SqlContext } from '../dialect.js';
import { first } from '../rows.js';

/** An organisation's settings: one row per organisation, replaced whole. */
export function organisationSettingsQueries({ db, tables, upsert }: SqlContext) {
  const { organisationSettings } = tables;
  return {
    findOrganisationSettings: (orgId: string): Promise<OrganisationSettings | null> =>
      first(
        db
          .select()
          .from(organisationSettings)
          .where(eq(organisationSettings.orgId, orgId))
          .limit(1),
      ),

    saveOrganisationSettings: (settings: OrganisationSettings) => {
      const row = { ...settings, updatedAt: wholeSeconds(settings.updatedAt) };
      const { orgId: _org, ...changes } = row;
      return upsert(organisationSettings, ['orgId'], row, changes);
    },
  };
}
