/** How the outbox spaces and bounds its attempts. */
export interface RetryPolicy {
  /** The first retry's delay before jitter (ms). */
  baseDelayMs: number;
  /** The longest delay between two attempts (ms). */
  maxDelayMs: number;
  /** Attempts after which a delivery that keeps failing is given up. */
  maxAttempts: number;
  /** The least wait after a rate limit that names no time (GitHub: "at least one minute"). */
  rateLimitFallbackMs: number;
}

/**
 * 2 s doubling to a 15 min cap, 12 attempts: about an hour of a code host's outage (2 + 4 + ... +
 * 512 s, then 900 s three times) before a delivery is given up.
 */
export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  baseDelayMs: 2_000,
  maxDelayMs: 15 * 60_000,
  maxAttempts: 12,
  rateLimitFallbackMs: 60_000,
};

/** An answer of the code host, or none (network failure, time-out). */
export interface AttemptAnswer {
  /** HTTP status, or null when no answer came. */
  status: number | null;
  /** Response headers, lower-case names. */
  headers: Readonly<Record<string, string | undefined>>;
  /** The answer's message (the `message` of GitHub's, GitLab's, Gitea's error bodies), if any. */
  message?: string;
}

/**
 * What a code host answers means, for the retry policy: its rate limits and the reason of a
 * refusal for good, in the host's own words.
 */
export interface HostAnswerRules {
  /** The host's name in messages: `GitHub`, `GitLab`, `Gitea`. */
  readonly name: string;
  /**
   * When a rate-limited answer allows the next request, or null when the answer is not a rate
   * limit (see `rateLimitFromHeaders` for the headers every host sends).
   */
  rateLimitedUntil(answer: AttemptAnswer, now: Date, policy: RetryPolicy): Date | null;
  /** Why the host refused for good (401, 403, 404, 422...), in words an operator can act on. */
  refusalReason(status: number, message: string | undefined): string;
}

/** What to do with a delivery after an attempt that did not succeed. */
export type AttemptDecision =
  /** Try again at `at`; `rateLimited` attempts wait for the code host and never give up. */
  | { action: 'retry'; at: Date; reason: string; rateLimited: boolean }
  /** Give it up: the code host refused it for good, or it kept failing. */
  | { action: 'fail'; reason: string };

/**
 * The exponential back-off before attempt `attempts + 1`, with equal jitter: half the delay
 * fixed, half random (`random()` in [0, 1)), so senders retrying together spread out.
 */
export function backoffDelayMs(
  attempts: number,
  policy: RetryPolicy,
  random: () => number,
): number {
  const exponent = Math.max(0, attempts - 1);
  const delay = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.min(exponent, 30));
  return Math.round(delay / 2 + (delay / 2) * random());
}

/**
 * When the code host's headers say the next request may go, or null when they name no time.
 * Read in order: `Retry-After` (seconds or an HTTP date; every host), GitHub's
 * `x-ratelimit-reset` (epoch seconds) with `x-ratelimit-remaining: 0`, and `RateLimit-Reset`
 * with `RateLimit-Remaining: 0` or a `429` (GitLab: epoch seconds; the IETF draft's delta
 * seconds when the value is too small to be an instant).
 */
export function rateLimitFromHeaders(answer: AttemptAnswer, now: Date): Date | null {
  const header = (name: string) => answer.headers[name]?.trim();
  const retryAfter = header('retry-after');
  if (retryAfter !== undefined && /^\d+$/.test(retryAfter)) {
    return new Date(now.getTime() + Number(retryAfter) * 1000);
  }
  if (retryAfter !== undefined && /[a-z]/i.test(retryAfter)) {
    const at = Date.parse(retryAfter);
    if (Number.isFinite(at)) return new Date(Math.max(now.getTime(), at));
  }
  const githubReset = header('x-ratelimit-reset');
  if (header('x-ratelimit-remaining') === '0' && githubReset && /^\d+$/.test(githubReset)) {
    return new Date(Math.max(now.getTime(), Number(githubReset) * 1000));
  }
  const reset = header('ratelimit-reset');
  const spent = header('ratelimit-remaining') === '0' || answer.status === 429;
  if (spent && reset !== undefined && /^\d+$/.test(reset)) {
    const value = Number(reset);
    // Epoch seconds are past 2001; a delta of that many seconds would be 30 years.
    const at = value >= 1_000_000_000 ? value * 1000 : now.getTime() + value * 1000;
    return new Date(Math.max(now.getTime(), at));
  }
  return null;
}

/**
 * Decides after an unsuccessful attempt (the `attempts`-th): a rate limit waits as the code host
 * says (with up to a second of jitter); 5xx, 408 and no answer retry with back-off until
 * `maxAttempts`; any other 4xx (401, 403 that is not a rate limit, 404, 422...) fails now, with
 * the host's reason.
 */
export function decideAfterAttempt(input: {
  answer: AttemptAnswer;
  attempts: number;
  now: Date;
  policy: RetryPolicy;
  random: () => number;
  /** The code host that answered: its rate limits, its refusals, its name. */
  host: HostAnswerRules;
}): AttemptDecision {
  const { answer, attempts, now, policy, random, host } = input;
  const limitedUntil = host.rateLimitedUntil(answer, now, policy);
  if (limitedUntil !== null) {
    return {
      action: 'retry',
      at: new Date(limitedUntil.getTime() + Math.round(1000 * random())),
      reason: `${host.name} rate limit (${answer.status}): waiting until ${limitedUntil.toISOString()}`,
      rateLimited: true,
    };
  }
  const status = answer.status;
  const transient = status === null || status === 408 || status >= 500;
  if (!transient) return { action: 'fail', reason: host.refusalReason(status, answer.message) };
  const reason =
    status === null
      ? `${host.name} unreachable: ${answer.message ?? 'no answer'}`
      : `${host.name} answered ${status}${answer.message ? `: ${answer.message}` : ''}`;
  if (attempts >= policy.maxAttempts) {
    return { action: 'fail', reason: `${reason} (gave up after ${attempts} attempts)` };
  }
  const delay = backoffDelayMs(attempts, policy, random);
  return { action: 'retry', at: new Date(now.getTime() + delay), reason, rateLimited: false };
}
