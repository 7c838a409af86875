import { CovgateApiError } from '@covgate/client';
import { useEffect, useState } from 'preact/hooks';

/** Wait assumed when a `429` carries no readable `Retry-After`. */
export const DEFAULT_WAIT_SECONDS = 60;

type Listener = (until: number | null) => void;

let waitUntil: number | null = null;
const listeners = new Set<Listener>();

function publish(): void {
  for (const listener of listeners) listener(waitUntil);
}

/**
 * The seconds a per-minute limit's `429` asks to wait, or null for any other error (the
 * token ceiling's `429 token limit reached` has no wait: waiting does not help).
 */
export function rateLimitWait(error: unknown): number | null {
  if (!(error instanceof CovgateApiError) || error.status !== 429) return null;
  if (error.error !== 'rate limit exceeded') return null;
  return Math.max(1, error.retryAfterSeconds ?? DEFAULT_WAIT_SECONDS);
}

/**
 * Records that the server refused a request for `seconds`: the banner counts down to the
 * latest such deadline, and every page waiting on it retries then.
 */
export function reportRateLimit(seconds: number, now = Date.now()): number {
  const until = now + seconds * 1000;
  if (waitUntil === null || until > waitUntil) {
    waitUntil = until;
    publish();
  }
  return waitUntil;
}

/** Ends the wait (its deadline passed). */
export function clearRateLimit(): void {
  if (waitUntil === null) return;
  waitUntil = null;
  publish();
}

/** The deadline of the current wait, or null; re-renders when it changes. */
export function useRateLimit(): number | null {
  const [until, setUntil] = useState(waitUntil);
  useEffect(() => {
    listeners.add(setUntil);
    setUntil(waitUntil);
    return () => {
      listeners.delete(setUntil);
    };
  }, []);
  return until;
}

/**
 * Calls `retry` once the wait a `429` asked for is over; returns a function that cancels it.
 */
export function retryAfterWait(seconds: number, retry: () => void): () => void {
  const until = reportRateLimit(seconds);
  const timer = window.setTimeout(
    () => {
      if (waitUntil !== null && Date.now() >= waitUntil) clearRateLimit();
      retry();
    },
    Math.max(0, until - Date.now()),
  );
  return () => window.clearTimeout(timer);
}
