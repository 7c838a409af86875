import { wholeSeconds } from '../../time/timestamp.js';
import type { OrganisationLinkStore } from '../store.js';
import { byCodeUnit, copy, copyOrNull } from './copy.js';
import type { MemoryTables } from './tables.js';

/** The memory store's links from organisations to organisations on code hosts. */
export function memoryOrganisationLinks(t: MemoryTables): OrganisationLinkStore {
  return {
    async linkOrganisation(link) {
      for (const other of t.organisationLinks.values()) {
        if (
          other.host === link.host &&
          other.organisation === link.organisation &&
          other.orgId !== link.orgId
        ) {
          return 'taken';
        }
      }
      t.organisationLinks.set(link.orgId, {
        ...copy(link),
        linkedAt: wholeSeconds(link.linkedAt),
      });
      return 'done';
    },

    async findOrganisationLink(orgId) {
      return copyOrNull(t.organisationLinks.get(orgId));
    },

    async listOrganisationLinks(host) {
      return [...t.organisationLinks.values()]
        .filter((link) => link.host === host)
        .map((link) => copy(link))
        .sort((a, b) => byCodeUnit(a.organisation, b.organisation));
    },

    async unlinkOrganisation(orgId) {
      return t.organisationLinks.delete(orgId);
    },
  };
}
