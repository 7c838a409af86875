import { type Organisation, type OrganisationStore, StoreConflictError } from '../store.js';
import { copy, copyOrNull } from './copy.js';
import type { MemoryTables } from './tables.js';

/** The memory store's organisations. */
export function memoryOrganisations(t: MemoryTables): OrganisationStore {
  const add = (org: Organisation): void => {
    if (t.organisations.has(org.id)) {
      throw new StoreConflictError(`organisation id already exists: ${org.id}`);
    }
    if (t.organisationIdBySlug.has(org.slug)) {
      throw new StoreConflictError(`organisation slug already exists: ${org.slug}`);
    }
    t.organisations.set(org.id, copy(org));
    t.organisationIdBySlug.set(org.slug, org.id);
  };
  const byId = (id: string | undefined): Organisation | null =>
    id === undefined ? null : copyOrNull(t.organisations.get(id));

  return {
    async createOrganisation(org) {
      add(org);
    },

    async findOrganisationById(id) {
      return byId(id);
    },

    async findOrganisationBySlug(slug) {
      return byId(t.organisationIdBySlug.get(slug));
    },

    async setOrganisationPlan(id, plan) {
      const org = t.organisations.get(id);
      if (!org) return false;
      org.plan = plan;
      return true;
    },

    async applyPlanChange(id, plan, eventAt) {
      const org = t.organisations.get(id);
      if (!org) return 'unknown';
      const at = Math.floor(eventAt.getTime() / 1000) * 1000;
      const last = t.planChangedAt.get(id);
      if (last !== undefined && at < last) return 'stale';
      org.plan = plan;
      t.planChangedAt.set(id, at);
      return 'applied';
    },

    async createPersonalOrganisation(org, userId) {
      if (t.personalOrganisationIdByUser.has(userId)) {
        throw new StoreConflictError(`user already has a personal organisation: ${userId}`);
      }
      add(org);
      t.personalOrganisationIdByUser.set(userId, org.id);
    },

    async findPersonalOrganisation(userId) {
      return byId(t.personalOrganisationIdByUser.get(userId));
    },
  };
}
