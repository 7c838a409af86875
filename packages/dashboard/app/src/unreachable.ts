import { CovgateNetworkError } from '@covgate/client';
import { useEffect, useState } from 'preact/hooks';

// Whether the server could not be reached by the last request that tried, for the one banner
// that says so (instead of one error per part of the page), and the count of "Try again"
// clicks every loading part of the page reloads on.

type Listener = () => void;

let unreachable = false;
let retries = 0;
const listeners = new Set<Listener>();

function publish(): void {
  for (const listener of listeners) listener();
}

/** Whether `error` means the server could not be reached at all (no answer). */
export function isUnreachable(error: unknown): boolean {
  return error instanceof CovgateNetworkError;
}

/** Records whether the last request reached the server; the banner follows. */
export function reportReachable(reached: boolean): void {
  if (unreachable === !reached) return;
  unreachable = !reached;
  publish();
}

/** "Try again" of the banner: every part of the page that loads, loads again. */
export function retryEverything(): void {
  retries += 1;
  publish();
}

/** Whether the server is unreachable now, and the retry count; re-renders when either changes. */
export function useReachability(): { unreachable: boolean; retries: number } {
  const [state, setState] = useState({ unreachable, retries });
  useEffect(() => {
    const listener = () => setState({ unreachable, retries });
    listeners.add(listener);
    listener();
    return () => {
      listeners.delete(listener);
    };
  }, []);
  return state;
}
