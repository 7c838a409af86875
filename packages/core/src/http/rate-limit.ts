import type { Logger } from 'pino';
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { Plan } from '../storage/store.js';

/** Requests per minute per token of each plan. */
export interface PlanLimits {
  free: number;
  team: number;
  enterprise: number;
}

/** The spec's intended model: free 60, team 600; enterprise is configurable. */
export const DEFAULT_PLAN_LIMITS: PlanLimits = { free: 60, team: 600, enterprise: 6000 };

/** Options of per-token rate limiting. */
export interface RateLimitOptions {
  /** Per-plan limits per minute; defaults to {@link DEFAULT_PLAN_LIMITS}. */
  limits?: Partial<PlanLimits>;
  /**
   * Builds the limiter of one plan (for example `RateLimiterRedis` to share counters between
   * processes). Defaults to `RateLimiterMemory`.
   */
  createLimiter?: (options: {
    plan: Plan;
    points: number;
    duration: number;
    keyPrefix: string;
  }) => RateLimiterAbstract;
  /** Set false to switch rate limiting off. */
  enabled?: boolean;
}

/** Decision for one request. */
export type RateLimitDecision =
  | { allowed: true; headers: Record<string, string> }
  | { allowed: false; headers: Record<string, string>; retryAfterSeconds: number };

/** Consumes one request of a token's per-minute budget. */
export interface PlanRateLimiter {
  consume(tokenId: string, plan: Plan): Promise<RateLimitDecision>;
}

const WINDOW_SECONDS = 60;

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

/**
 * Per-token limiter by organisation plan, through `rate-limiter-flexible`. When the
 * limiter's store fails (refused, timed out), the request is served (fail open) and the
 * outage is logged once as `[ratelimit] ...`, its end once more: an outage of Redis must
 * not take the API down.
 */
export function createPlanRateLimiter(options: RateLimitOptions, logger: Logger): PlanRateLimiter {
  if (options.enabled === false) {
    return { consume: async () => ({ allowed: true, headers: {} }) };
  }
  const limits: PlanLimits = { ...DEFAULT_PLAN_LIMITS, ...options.limits };
  const create =
    options.createLimiter ??
    ((o: { points: number; duration: number; keyPrefix: string }) => new RateLimiterMemory(o));
  const limiters = new Map<Plan, RateLimiterAbstract>();
  const limiterFor = (plan: Plan): RateLimiterAbstract => {
    let limiter = limiters.get(plan);
    if (!limiter) {
      limiter = create({
        plan,
        points: limits[plan],
        duration: WINDOW_SECONDS,
        keyPrefix: `covgate-rl-${plan}`,
      });
      limiters.set(plan, limiter);
    }
    return limiter;
  };
  // One line when the limiter's store starts failing and one when it answers again: an
  // outage under load must not write a line per request.
  let unavailable = false;
  return {
    async consume(tokenId, plan) {
      const limit = limits[plan];
      try {
        const result = await limiterFor(plan).consume(tokenId, 1);
        if (unavailable) {
          unavailable = false;
          logger.info('[ratelimit] limiter available again, limits enforced');
        }
        return {
          allowed: true,
          headers: headersFor(limit, result.remainingPoints, result.msBeforeNext),
        };
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) {
          const retryAfterSeconds = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
          return {
            allowed: false,
            retryAfterSeconds,
            headers: {
              ...headersFor(limit, 0, rejection.msBeforeNext),
              'retry-after': String(retryAfterSeconds),
            },
          };
        }
        if (!unavailable) {
          unavailable = true;
          const message = rejection instanceof Error ? rejection.message : String(rejection);
          logger.error(`[ratelimit] limiter unavailable, serving requests unlimited: ${message}`);
        }
        return { allowed: true, headers: {} };
      }
    },
  };
}
