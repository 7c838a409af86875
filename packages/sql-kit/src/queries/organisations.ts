import type { Organisation, Plan, PlanChangeResult } from '@covgate/core';
import { wholeSeconds } from '@covgate/core/storage-kit';
import { and, eq, isNull, lte, or } from 'drizzle-orm';
import { selectOrganisations } from '../columns.js';
import type { SqlContext } from '../dialect.js';
import { first } from '../rows.js';

/** Organisations: create, find, plan changes, personal organisations. */
export function organisationQueries({ db, tables, lookups, run, affected }: SqlContext) {
  const { organisations } = tables;
  const findById = (id: string) => first(run(lookups.organisationById, { id }));

  return {
    createOrganisation: async (org: Organisation) => {
      await db.insert(organisations).values({ ...org, createdAt: wholeSeconds(org.createdAt) });
    },

    findOrganisationById: findById,

    findOrganisationBySlug: (slug: string) => first(run(lookups.organisationBySlug, { slug })),

    setOrganisationPlan: async (id: string, plan: Plan) => {
      const result = await db.update(organisations).set({ plan }).where(eq(organisations.id, id));
      return affected(result) > 0;
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
      if (affected(result) > 0) return 'applied';
      return (await findById(id)) ? 'stale' : 'unknown';
    },

    createPersonalOrganisation: async (org: Organisation, userId: string) => {
      await db
        .insert(organisations)
        .values({ ...org, createdAt: wholeSeconds(org.createdAt), personalUserId: userId });
    },

    findPersonalOrganisation: (userId: string) =>
      first(
        selectOrganisations(db, tables).where(eq(organisations.personalUserId, userId)).limit(1),
      ),
  };
}
