import type { Logger } from 'pino';
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { Plan } from '../storage/store.js';

/** Requests per minute of each plan. */
export interface PlanLimits {
  free: number;
  team: number;
  enterprise: number;
}

/** Requests per minute of one token by plan (docs/configuration.md); enterprise is meant to be configured. */
export const DEFAULT_PLAN_LIMITS: PlanLimits = { free: 60, team: 600, enterprise: 6000 };

/** How much more than one token all tokens of an organisation may send together, by default. */
export const ORGANISATION_CEILING_FACTOR = 2;

/** Defaults of the limits that are not per plan. */
export const DEFAULT_REQUEST_LIMITS = {
  /** Requests per minute of one session. */
  sessionPerMinute: 300,
  /** `POST /v1/tokens` and rotations per minute of one organisation. */
  tokenCreationsPerMinute: 10,
  /** Active and rotating tokens one organisation may hold. */
  activeTokensPerOrganisation: 100,
} as const;

/** What a limiter factory is asked to build. */
export interface LimiterSpec {
  /** The plan of a per-plan limiter; absent for the session and token-creation limiters. */
  plan?: Plan;
  points: number;
  duration: number;
  keyPrefix: string;
}

/** Options of request rate limiting. */
export interface RateLimitOptions {
  /** Per-token limits per minute by plan; defaults to {@link DEFAULT_PLAN_LIMITS}. */
  limits?: Partial<PlanLimits>;
  /**
   * Per-organisation ceilings per minute by plan, shared by all the organisation's tokens,
   * so minting tokens does not multiply the plan. Default: twice the per-token limit.
   */
  organisationLimits?: Partial<PlanLimits>;
  /** Requests per minute of one session (dashboard). Default 300. */
  sessionPerMinute?: number;
  /** Token creations (and rotations) per minute of one organisation. Default 10. */
  tokenCreationsPerMinute?: number;
  /** Active and rotating tokens one organisation may hold. Default 100. */
  activeTokensPerOrganisation?: number;
  /**
   * Builds the limiter of one rule (for example `RateLimiterRedis` to share counters between
   * processes). Defaults to `RateLimiterMemory`.
   */
  createLimiter?: (options: LimiterSpec) => RateLimiterAbstract;
  /** Set false to switch rate limiting off (the active-token ceiling stays). */
  enabled?: boolean;
}

/** Decision for one request. */
export type RateLimitDecision =
  | { allowed: true; headers: Record<string, string> }
  | { allowed: false; headers: Record<string, string>; retryAfterSeconds: number };

/** Consumes one unit of the per-minute budgets a request counts against. */
export interface RequestRateLimiter {
  /** One request of an API token: its own budget and its organisation's ceiling. */
  consumeToken(tokenId: string, orgId: string, plan: Plan): Promise<RateLimitDecision>;
  /** One request of a session. */
  consumeSession(sessionId: string): Promise<RateLimitDecision>;
  /** One token creation or rotation of an organisation. */
  consumeTokenCreation(orgId: string): Promise<RateLimitDecision>;
  /** Active and rotating tokens one organisation may hold. */
  readonly activeTokensPerOrganisation: number;
}

const WINDOW_SECONDS = 60;
const ALLOW: RateLimitDecision = { allowed: true, headers: {} };

/** What one budget said of one request, before it is turned into headers. */
interface Consumption {
  allowed: boolean;
  limit: number;
  remaining: number;
  msBeforeNext: number;
}

/** The decision and its `RateLimit-*` headers (and `Retry-After` when refused). */
function decisionOf({ allowed, limit, remaining, msBeforeNext }: Consumption): RateLimitDecision {
  if (allowed) return { allowed, headers: headersFor(limit, remaining, msBeforeNext) };
  const retryAfterSeconds = Math.max(1, Math.ceil(msBeforeNext / 1000));
  return {
    allowed,
    retryAfterSeconds,
    headers: {
      ...headersFor(limit, 0, msBeforeNext),
      'retry-after': String(retryAfterSeconds),
    },
  };
}

function headersFor(
  limit: number,
  remaining: number,
  msBeforeNext: number,
): Record<string, string> {
  return {
    'ratelimit-limit': String(limit),
    'ratelimit-remaining': String(Math.max(0, remaining)),
    'ratelimit-reset': String(Math.max(1, Math.ceil(msBeforeNext / 1000))),
  };
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) {
    throw new RangeError(`rateLimit.${name} must be a positive integer`);
  }
  return value;
}

/**
 * Request limiter through `rate-limiter-flexible`: per token by the organisation's plan with
 * an organisation-wide ceiling, per session, and token creations per organisation. When
 * the limiter's store fails (refused, timed out), the request is served (fail open) and the
 * outage is logged once as `[ratelimit] ...`, its end once more: an outage of Redis must
 * not take the API down.
 *
 * @throws RangeError when a limit is not a positive integer.
 */
export function createRequestRateLimiter(
  options: RateLimitOptions,
  logger: Logger,
): RequestRateLimiter {
  const activeTokensPerOrganisation = positiveInteger(
    'activeTokensPerOrganisation',
    options.activeTokensPerOrganisation ?? DEFAULT_REQUEST_LIMITS.activeTokensPerOrganisation,
  );
  if (options.enabled === false) {
    return {
      consumeToken: async () => ALLOW,
      consumeSession: async () => ALLOW,
      consumeTokenCreation: async () => ALLOW,
      activeTokensPerOrganisation,
    };
  }
  const limits: PlanLimits = { ...DEFAULT_PLAN_LIMITS, ...options.limits };
  const organisationLimits: PlanLimits = {
    free: limits.free * ORGANISATION_CEILING_FACTOR,
    team: limits.team * ORGANISATION_CEILING_FACTOR,
    enterprise: limits.enterprise * ORGANISATION_CEILING_FACTOR,
    ...options.organisationLimits,
  };
  const sessionLimit = positiveInteger(
    'sessionPerMinute',
    options.sessionPerMinute ?? DEFAULT_REQUEST_LIMITS.sessionPerMinute,
  );
  const creationLimit = positiveInteger(
    'tokenCreationsPerMinute',
    options.tokenCreationsPerMinute ?? DEFAULT_REQUEST_LIMITS.tokenCreationsPerMinute,
  );
  const create = options.createLimiter ?? ((spec: LimiterSpec) => new RateLimiterMemory(spec));
  const cached = new Map<string, RateLimiterAbstract>();
  const limiter = (keyPrefix: string, points: number, plan?: Plan): RateLimiterAbstract => {
    let found = cached.get(keyPrefix);
    if (!found) {
      found = create({ ...(plan ? { plan } : {}), points, duration: WINDOW_SECONDS, keyPrefix });
      cached.set(keyPrefix, found);
    }
    return found;
  };
  // The limiter of each plan, found without building its key prefix on every request.
  const byPlan = (prefix: string, points: Readonly<Record<Plan, number>>) => {
    const limiters = new Map<Plan, RateLimiterAbstract>();
    return (plan: Plan): RateLimiterAbstract => {
      let found = limiters.get(plan);
      if (!found) {
        found = limiter(`${prefix}${plan}`, points[plan], plan);
        limiters.set(plan, found);
      }
      return found;
    };
  };
  const tokenLimiter = byPlan('covgate-rl-', limits);
  const organisationLimiter = byPlan('covgate-rl-org-', organisationLimits);

  // One line when the limiter's store starts failing and one when it answers again: an
  // outage under load must not write a line per request.
  let unavailable = false;
  /** One unit taken from `key`'s budget; null when the limiter's store failed. */
  async function consume(
    from: RateLimiterAbstract,
    key: string,
    limit: number,
  ): Promise<Consumption | null> {
    try {
      const result = await from.consume(key, 1);
      if (unavailable) {
        unavailable = false;
        logger.info('[ratelimit] limiter available again, limits enforced');
      }
      return {
        allowed: true,
        limit,
        remaining: result.remainingPoints,
        msBeforeNext: result.msBeforeNext,
      };
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) {
        return { allowed: false, limit, remaining: 0, msBeforeNext: rejection.msBeforeNext };
      }
      if (!unavailable) {
        unavailable = true;
        const message = rejection instanceof Error ? rejection.message : String(rejection);
        logger.error(`[ratelimit] limiter unavailable, serving requests unlimited: ${message}`);
      }
      return null;
    }
  }
  const decided = async (consumption: Promise<Consumption | null>) => {
    const taken = await consumption;
    return taken === null ? ALLOW : decisionOf(taken);
  };

  return {
    activeTokensPerOrganisation,
    async consumeToken(tokenId, orgId, plan) {
      const own = await consume(tokenLimiter(plan), tokenId, limits[plan]);
      if (own === null) return ALLOW;
      if (!own.allowed) return decisionOf(own);
      const org = await consume(organisationLimiter(plan), orgId, organisationLimits[plan]);
      if (org === null) return decisionOf(own);
      if (!org.allowed) {
        // The token's own budget is not spent by a request its organisation refused.
        await tokenLimiter(plan)
          .reward(tokenId, 1)
          .catch(() => undefined);
        return decisionOf(org);
      }
      // The headers describe whichever budget is closer to running out; only that one's are made.
      return decisionOf(org.remaining < own.remaining ? org : own);
    },
    consumeSession(sessionId) {
      return decided(consume(limiter('covgate-rl-session', sessionLimit), sessionId, sessionLimit));
    },
    consumeTokenCreation(orgId) {
      return decided(
        consume(limiter('covgate-rl-token-create', creationLimit), orgId, creationLimit),
      );
    },
  };
}
