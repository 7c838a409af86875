import { StoreConflictError } from '@covgate/core';
import { describe, expect, it } from 'vitest';
import { buildOrganisation, FIXTURE_TIME, newPrefixedId, secondsAfter } from '../fixtures.js';
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

    it('applies plan changes in event-time order: an older event is stale and changes nothing', async () => {
      const org = buildOrganisation({ plan: 'free' });
      await store().createOrganisation(org);

      expect(await store().applyPlanChange(org.id, 'team', secondsAfter(FIXTURE_TIME, 20))).toBe(
        'applied',
      );
      expect(await store().applyPlanChange(org.id, 'free', secondsAfter(FIXTURE_TIME, 30))).toBe(
        'applied',
      );
      expect(
        await store().applyPlanChange(org.id, 'enterprise', secondsAfter(FIXTURE_TIME, 10)),
      ).toBe('stale');
      expect(await store().findOrganisationById(org.id)).toEqual({ ...org, plan: 'free' });
    });

    it('applies a plan change stamped in the same second as the last one (whole seconds)', async () => {
      const org = buildOrganisation({ plan: 'free' });
      await store().createOrganisation(org);
      const second = secondsAfter(FIXTURE_TIME, 5);

      expect(await store().applyPlanChange(org.id, 'team', new Date(second.getTime() + 900))).toBe(
        'applied',
      );
      expect(
        await store().applyPlanChange(org.id, 'enterprise', new Date(second.getTime() + 100)),
      ).toBe('applied');
      expect(await store().findOrganisationBySlug(org.slug)).toEqual({
        ...org,
        plan: 'enterprise',
      });
    });

    it('keeps the last applied event time when the plan is set directly', async () => {
      const org = buildOrganisation({ plan: 'free' });
      await store().createOrganisation(org);
      await store().applyPlanChange(org.id, 'team', secondsAfter(FIXTURE_TIME, 20));

      expect(await store().setOrganisationPlan(org.id, 'enterprise')).toBe(true);

      expect(await store().applyPlanChange(org.id, 'free', secondsAfter(FIXTURE_TIME, 19))).toBe(
        'stale',
      );
      expect(await store().findOrganisationById(org.id)).toEqual({ ...org, plan: 'enterprise' });
    });

    it('answers unknown when applying a plan change to an unknown organisation', async () => {
      const id = newPrefixedId('org_');

      expect(await store().applyPlanChange(id, 'team', FIXTURE_TIME)).toBe('unknown');
      expect(await store().findOrganisationById(id)).toBeNull();
    });

    it('finds a personal organisation by its user id only', async () => {
      const userId = newPrefixedId('usr_');
      const org = buildOrganisation();
      await store().createPersonalOrganisation(org, userId);

      expect(await store().findPersonalOrganisation(userId)).toEqual(org);
      expect(await store().findOrganisationBySlug(org.slug)).toEqual(org);
      expect(await store().findPersonalOrganisation(newPrefixedId('usr_'))).toBeNull();
    });

    it('never treats an ordinary organisation as the personal organisation of a user', async () => {
      const userId = newPrefixedId('usr_');
      const ordinary = buildOrganisation({ slug: `github-${newPrefixedId('')}` });
      await store().createOrganisation(ordinary);

      expect(await store().findPersonalOrganisation(userId)).toBeNull();
      await expect(
        store().createPersonalOrganisation(buildOrganisation({ slug: ordinary.slug }), userId),
      ).rejects.toBeInstanceOf(StoreConflictError);
      expect(await store().findPersonalOrganisation(userId)).toBeNull();
    });

    it('rejects a second personal organisation for one user and keeps the first', async () => {
      const userId = newPrefixedId('usr_');
      const first = buildOrganisation();
      await store().createPersonalOrganisation(first, userId);
      const second = buildOrganisation();

      await expect(store().createPersonalOrganisation(second, userId)).rejects.toBeInstanceOf(
        StoreConflictError,
      );
      expect(await store().findPersonalOrganisation(userId)).toEqual(first);
      expect(await store().findOrganisationById(second.id)).toBeNull();
    });

    it('lets exactly one of 10 concurrent personal organisations of one user in', async () => {
      const userId = newPrefixedId('usr_');
      const candidates = Array.from({ length: 10 }, () => buildOrganisation());

      const results = await Promise.allSettled(
        candidates.map((org) => store().createPersonalOrganisation(org, userId)),
      );

      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      for (const r of results) {
        if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(StoreConflictError);
      }
      const winner = candidates[results.findIndex((r) => r.status === 'fulfilled')];
      expect(await store().findPersonalOrganisation(userId)).toEqual(winner);
    });
  });
}
