import type { OrganisationSettings } from '@covgate/core';
import { describe, expect, it } from 'vitest';
import { FIXTURE_TIME, newPrefixedId, secondsAfter } from '../fixtures.js';
import { givenOrganisation } from './parents.js';
import type { StoreUnderTest } from './store-under-test.js';

/**
 * Conformance tests of `OrganisationSettingsStore`; `peer` is a second store on the same data
 * when the suite has one, else the store under test.
 */
export function describeOrganisationSettings(store: StoreUnderTest, peer: StoreUnderTest): void {
  describe('organisation settings', () => {
    it('saves, finds and replaces an organisation’s minimums with every field', async () => {
      const orgId = await givenOrganisation(store());
      const other = await givenOrganisation(store());
      expect(await store().findOrganisationSettings(orgId)).toBeNull();

      const first: OrganisationSettings = {
        orgId,
        minPatchTarget: 72.5,
        minProjectTarget: 60,
        updatedBy: newPrefixedId('usr_'),
        updatedAt: FIXTURE_TIME,
      };
      await store().saveOrganisationSettings(first);
      expect(await peer().findOrganisationSettings(orgId)).toEqual(first);
      expect(await store().findOrganisationSettings(other)).toBeNull();

      const cleared: OrganisationSettings = {
        ...first,
        minPatchTarget: null,
        minProjectTarget: 99.99,
        updatedBy: newPrefixedId('usr_'),
        updatedAt: secondsAfter(FIXTURE_TIME, 60),
      };
      await peer().saveOrganisationSettings(cleared);
      expect(await store().findOrganisationSettings(orgId)).toEqual(cleared);
    });

    it('keeps whole seconds of the instant it is given', async () => {
      const orgId = await givenOrganisation(store());
      const updatedBy = newPrefixedId('usr_');
      await store().saveOrganisationSettings({
        orgId,
        minPatchTarget: 0,
        minProjectTarget: 100,
        updatedBy,
        updatedAt: new Date(FIXTURE_TIME.getTime() + 999),
      });
      expect(await store().findOrganisationSettings(orgId)).toEqual({
        orgId,
        minPatchTarget: 0,
        minProjectTarget: 100,
        updatedBy,
        updatedAt: FIXTURE_TIME,
      });
    });
  });
}
