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
 * 2 s doubling to a 15 min cap, 12 attempts: about an hour of a GitHub outage (2 + 4 + ... +
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
  /** The answer's `message` (GitHub's error bodies), when it had one. */
  message?: string;
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
 * When a rate-limited answer allows the next request, or null when the answer is not a rate
 * limit. GitHub documents: a secondary limit (403 or 429) with `retry-after` seconds; a primary
 * limit with `x-ratelimit-remaining: 0` and `x-ratelimit-reset` (epoch seconds); a 429, or a
 * 403 whose message names a secondary rate limit, without either header: wait a minute.
 */
export function rateLimitedUntil(
  answer: AttemptAnswer,
  now: Date,
  policy: RetryPolicy,
): Date | null {
  if (answer.status !== 403 && answer.status !== 429) return null;
  const retryAfter = answer.headers['retry-after'];
  if (retryAfter !== undefined && /^\d+$/.test(retryAfter.trim())) {
    return new Date(now.getTime() + Number(retryAfter.trim()) * 1000);
  }
  const reset = answer.headers['x-ratelimit-reset'];
  if (
    answer.headers['x-ratelimit-remaining'] === '0' &&
    reset !== undefined &&
    /^\d+$/.test(reset)
  ) {
    return new Date(Math.max(now.getTime(), Number(reset) * 1000));
  }
  if (answer.status === 429 || /rate limit/i.test(answer.message ?? '')) {
    return new Date(now.getTime() + policy.rateLimitFallbackMs);
  }
  return null;
}

/** Why the code host refused for good, in words an operator can act on. */
function permanentReason(status: number, message: string | undefined): string {
  const detail = message ? `: ${message}` : '';
  switch (status) {
    case 401:
      return `GitHub refused the credential (401)${detail}`;
    case 403:
      return `GitHub denied access: the credential lacks a permission (403)${detail}`;
    case 404:
      return `GitHub repository, commit or pull request not found, or not visible to the credential (404)${detail}`;
    case 422:
      return `GitHub refused the request (422)${detail}`;
    default:
      return `GitHub answered ${status}${detail}`;
  }
}

/**
 * Decides after an unsuccessful attempt (the `attempts`-th): a rate limit waits as the code host
 * says (with up to a second of jitter); 5xx, 408 and no answer retry with back-off until
 * `maxAttempts`; any other 4xx (401, 403 that is not a rate limit, 404, 422...) fails now.
 */
export function decideAfterAttempt(input: {
  answer: AttemptAnswer;
  attempts: number;
  now: Date;
  policy: RetryPolicy;
  random: () => number;
}): AttemptDecision {
  const { answer, attempts, now, policy, random } = input;
  const limitedUntil = rateLimitedUntil(answer, now, policy);
  if (limitedUntil !== null) {
    return {
      action: 'retry',
      at: new Date(limitedUntil.getTime() + Math.round(1000 * random())),
      reason: `GitHub rate limit (${answer.status}): waiting until ${limitedUntil.toISOString()}`,
      rateLimited: true,
    };
  }
  const status = answer.status;
  const transient = status === null || status === 408 || status >= 500;
  if (!transient) return { action: 'fail', reason: permanentReason(status, answer.message) };
  const reason =
    status === null
      ? `GitHub unreachable: ${answer.message ?? 'no answer'}`
      : `GitHub answered ${status}${answer.message ? `: ${answer.message}` : ''}`;
  if (attempts >= policy.maxAttempts) {
    return { action: 'fail', reason: `${reason} (gave up after ${attempts} attempts)` };
  }
  const delay = backoffDelayMs(attempts, policy, random);
  return { action: 'retry', at: new Date(now.getTime() + delay), reason, rateLimited: false };
}
