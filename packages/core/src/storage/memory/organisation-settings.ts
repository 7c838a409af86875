import { wholeSeconds } from '../../time/timestamp.js';
import type { OrganisationSettingsStore } from '../store.js';
import { copy, copyOrNull } from './copy.js';
import type { MemoryTables } from './tables.js';

/** The memory store's organisation settings. */
export function memoryOrganisationSettings(t: MemoryTables): OrganisationSettingsStore {
  return {
    async findOrganisationSettings(orgId) {
      return copyOrNull(t.organisationSettings.get(orgId));
    },

    async saveOrganisationSettings(settings) {
      t.organisationSettings.set(
        settings.orgId,
        copy({ ...settings, updatedAt: wholeSeconds(settings.updatedAt) }),
      );
    },
  };
}
