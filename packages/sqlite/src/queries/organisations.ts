import type { Organisation, Plan, PlanChangeResult } from '@covgate/core';
import { wholeSeconds } from '@covgate/core/storage-kit';
import { and, eq, isNull, lte, or, type SQL } from 'drizzle-orm';
import { organisations } from '../schema.js';
import { organisationColumns } from './columns.js';
import { first, type QueryContext } from './context.js';

/** Organisations: create, find, plan changes, personal organisations. */
export function organisationQueries({ db, prepared }: QueryContext) {
  const findOrganisation = (where: SQL): Promise<Organisation | null> =>
    first(db.select(organisationColumns).from(organisations).where(where).limit(1));

  return {
    createOrganisation: async (org: Organisation) => {
      await db.insert(organisations).values({ ...org, createdAt: wholeSeconds(org.createdAt) });
    },

    findOrganisationById: (id: string) => first(prepared.organisationById.all({ id })),

    findOrganisationBySlug: (slug: string) => first(prepared.organisationBySlug.all({ slug })),

    setOrganisationPlan: async (id: string, plan: Plan) => {
      const result = await db.update(organisations).set({ plan }).where(eq(organisations.id, id));
      return result.rowsAffected > 0;
    },

    applyPlanChange: async (id: string, plan: Plan, eventAt: Date): Promise<PlanChangeResult> => {
      const at = wholeSeconds(eventAt);
      const result = await db
        .update(organisations)
        .set({ plan, planChangedAt: at })
        .where(
          and(
            eq(organisations.id, id),
            or(isNull(organisations.planChangedAt), lte(organisations.planChangedAt, at)),
          ),
        );
      if (result.rowsAffected > 0) return 'applied';
      return (await first(prepared.organisationById.all({ id }))) ? 'stale' : 'unknown';
    },

    createPersonalOrganisation: async (org: Organisation, userId: string) => {
      await db
        .insert(organisations)
        .values({ ...org, createdAt: wholeSeconds(org.createdAt), personalUserId: userId });
    },

    findPersonalOrganisation: (userId: string) =>
      findOrganisation(eq(organisations.personalUserId, userId)),
  };
}
