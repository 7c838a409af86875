// Organisations and their plans.
// The records and their store port; `../store.ts` joins the ports into `Store`.

/** Billing plan of an organisation; it selects the rate-limit tier. */
export type Plan = 'free' | 'team' | 'enterprise';

/** An organisation: the unit that owns tokens, sessions and execution records. */
export interface Organisation {
  /** `org_` + lowercase ULID. */
  id: string;
  /** URL-safe unique name used in query parameters and badge paths. */
  slug: string;
  name: string;
  plan: Plan;
  createdAt: Date;
}

/** Organisations. */
export interface OrganisationStore {
  /** Inserts an organisation; throws {@link StoreConflictError} when the id or slug exists. */
  createOrganisation(org: Organisation): Promise<void>;
  findOrganisationById(id: string): Promise<Organisation | null>;
  findOrganisationBySlug(slug: string): Promise<Organisation | null>;
  /** Changes the plan; returns false when the organisation does not exist. */
  setOrganisationPlan(id: string, plan: Plan): Promise<boolean>;
  /**
   * Applies a plan change that a provider stamped at `eventAt` (whole seconds), atomically and
   * only when no later change has been applied: `applied` when `eventAt` is at or after the
   * last applied change's time (or none was applied yet), `stale` (nothing changed) when it is
   * before it, `unknown` when the organisation does not exist. {@link setOrganisationPlan}
   * neither reads nor moves that time.
   */
  applyPlanChange(id: string, plan: Plan, eventAt: Date): Promise<PlanChangeResult>;
  /**
   * Inserts an organisation as the personal organisation of user `userId` (one per user).
   * Throws {@link StoreConflictError} when the id or slug exists or the user already has one.
   */
  createPersonalOrganisation(org: Organisation, userId: string): Promise<void>;
  /** The personal organisation linked to user `userId`, never looked up by slug. */
  findPersonalOrganisation(userId: string): Promise<Organisation | null>;
}

/** Outcome of {@link OrganisationStore.applyPlanChange}. */
export type PlanChangeResult = 'applied' | 'stale' | 'unknown';
