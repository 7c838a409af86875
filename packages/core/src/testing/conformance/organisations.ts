import { describe, expect, it } from 'vitest';
import { StoreConflictError } from '../../storage/store.js';
import { buildOrganisation, newPrefixedId } from '../fixtures.js';
import type { StoreUnderTest } from './store-under-test.js';

/** Conformance tests of `OrganisationStore`. */
export function describeOrganisations(store: StoreUnderTest): void {
  describe('organisations', () => {
    it('finds a created organisation by id and by slug with every field intact', async () => {
      const org = buildOrganisation({ plan: 'team' });
      await store().createOrganisation(org);

      expect(await store().findOrganisationById(org.id)).toEqual(org);
      expect(await store().findOrganisationBySlug(org.slug)).toEqual(org);
    });

    it('answers null for an unknown id or slug', async () => {
      expect(await store().findOrganisationById(newPrefixedId('org_'))).toBeNull();
      expect(await store().findOrganisationBySlug(`missing-${newPrefixedId('')}`)).toBeNull();
    });

    it('rejects a second organisation with the same slug and keeps the first', async () => {
      const first = buildOrganisation();
      await store().createOrganisation(first);
      const second = buildOrganisation({ slug: first.slug, name: 'Impostor' });

      await expect(store().createOrganisation(second)).rejects.toBeInstanceOf(StoreConflictError);
      expect(await store().findOrganisationBySlug(first.slug)).toEqual(first);
      expect(await store().findOrganisationById(second.id)).toBeNull();
    });

    it('rejects a second organisation with the same id', async () => {
      const first = buildOrganisation();
      await store().createOrganisation(first);
      const second = buildOrganisation({ id: first.id });

      await expect(store().createOrganisation(second)).rejects.toBeInstanceOf(StoreConflictError);
      expect(await store().findOrganisationById(first.id)).toEqual(first);
      expect(await store().findOrganisationBySlug(second.slug)).toBeNull();
    });

    it('round-trips a slug and a name with non-ASCII characters', async () => {
      const plain = buildOrganisation();
      const unicode = buildOrganisation({ slug: `${plain.slug}-é`, name: 'Café Ünïcødé 🚀' });
      await store().createOrganisation(plain);
      await store().createOrganisation(unicode);

      expect(await store().findOrganisationBySlug(unicode.slug)).toEqual(unicode);
      expect(await store().findOrganisationBySlug(plain.slug)).toEqual(plain);
    });

    it('changes the plan of an organisation and nothing else', async () => {
      const org = buildOrganisation({ plan: 'free' });
      await store().createOrganisation(org);

      expect(await store().setOrganisationPlan(org.id, 'enterprise')).toBe(true);
      expect(await store().findOrganisationById(org.id)).toEqual({ ...org, plan: 'enterprise' });
      expect(await store().findOrganisationBySlug(org.slug)).toEqual({
        ...org,
        plan: 'enterprise',
      });
    });

    it('answers false when changing the plan of an unknown organisation', async () => {
      const id = newPrefixedId('org_');

      expect(await store().setOrganisationPlan(id, 'team')).toBe(false);
      expect(await store().findOrganisationById(id)).toBeNull();
    });
  });
}
