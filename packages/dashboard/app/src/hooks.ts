import type { RefObject } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { describeError, isSignedOut } from './api.js';
import { useApp } from './context.js';
import { rateLimitWait, retryAfterWait } from './rate-limit.js';
import { isUnreachable, reportReachable, useReachability } from './unreachable.js';

/**
 * A request's state: loading, its value, or an error message (`unreachable` when the server
 * did not answer at all: the page's one banner says so, not each part of the page).
 */
export type Load<T> =
  | { state: 'loading' }
  | { state: 'ready'; value: T }
  | { state: 'error'; message: string; unreachable?: boolean };

/** What {@link runRequest} does with a request's outcome. */
export interface RequestHandlers<T> {
  onValue: (value: T) => void;
  /** `wait`: the seconds a per-minute limit's 429 asked for (`retry` runs then), else null. */
  onError: (error: unknown, wait: number | null) => void;
  retry: () => void;
}

/**
 * Runs `load` once for an effect: its outcome goes to `handlers` unless the effect was cleaned
 * up first; a per-minute limit's 429 starts the rate-limit banner's countdown and calls
 * `retry` when the wait is over. Returns the effect's cleanup (abort, cancel the retry).
 */
export function runRequest<T>(
  load: (signal: AbortSignal) => Promise<T>,
  handlers: RequestHandlers<T>,
): () => void {
  const controller = new AbortController();
  let cancelRetry = () => {};
  load(controller.signal).then(
    (value) => {
      if (!controller.signal.aborted) handlers.onValue(value);
    },
    (error: unknown) => {
      if (controller.signal.aborted) return;
      const wait = rateLimitWait(error);
      handlers.onError(error, wait);
      if (wait !== null) cancelRetry = retryAfterWait(wait, handlers.retry);
    },
  );
  return () => {
    controller.abort();
    cancelRetry();
  };
}

/**
 * Runs `load` when `key` changes (and on `reload`, and on the unreachable banner's "Try
 * again"), aborting the previous run. A 401 sends the user to the sign-in page; a 429 shows
 * its error, starts the rate-limit banner's countdown and runs `load` again when the wait is
 * over; no answer at all shows the one unreachable banner.
 */
export function useLoad<T>(
  load: (signal: AbortSignal) => Promise<T>,
  key: string,
): [Load<T>, () => void] {
  const { signedOut } = useApp();
  const { retries } = useReachability();
  const [result, setResult] = useState<Load<T>>({ state: 'loading' });
  const [attempt, setAttempt] = useState(0);
  const reload = useCallback(() => setAttempt((n) => n + 1), []);
  useEffect(() => {
    setResult({ state: 'loading' });
    return runRequest(load, {
      onValue: (value) => {
        reportReachable(true);
        setResult({ state: 'ready', value });
      },
      onError: (error, wait) => {
        if (isSignedOut(error)) {
          signedOut();
          return;
        }
        const unreachable = isUnreachable(error);
        reportReachable(!unreachable);
        const retrying = wait === null ? '' : ' This page tries again then.';
        setResult({ state: 'error', message: `${describeError(error)}${retrying}`, unreachable });
      },
      retry: reload,
    });
  }, [key, attempt, retries]);
  return [result, reload];
}

/**
 * How a signed-in page answers a failed request: a 401 sends the user to the sign-in page
 * (null: nothing to show); any other error becomes the sentence to show.
 */
export function useFailure(): (error: unknown) => string | null {
  const { signedOut } = useApp();
  return (error) => {
    if (!isSignedOut(error)) return describeError(error);
    signedOut();
    return null;
  };
}

/** A change the user asked for, and whether it is under way or failed (see {@link useAction}). */
export interface ActionState {
  busy: boolean;
  /** Why the last change failed, or null. */
  failure: string | null;
  /** Runs `work`: busy meanwhile, its failure answered as {@link useFailure} does. */
  run: (work: () => Promise<void>) => Promise<void>;
}

/** One change at a time (create, rotate, switch...), with its busy state and failure. */
export function useAction(): ActionState {
  const failed = useFailure();
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const run = async (work: () => Promise<void>) => {
    setBusy(true);
    setFailure(null);
    try {
      await work();
    } catch (error) {
      setFailure(failed(error));
    } finally {
      setBusy(false);
    }
  };
  return { busy, failure, run };
}

/** The dialog open on a page, and the functions that open and close it (see {@link useDialog}). */
export interface DialogState<D> {
  /** The open dialog, or null. */
  dialog: D | null;
  /** A click handler that opens the dialog `make` describes for the clicked button. */
  open: (make: (trigger: HTMLElement) => D) => (event: MouseEvent) => void;
  /** Closes the dialog and puts focus back on the button that opened it. */
  cancel: () => void;
  /** Closes the dialog once its change is done: the page says what happened and moves focus. */
  close: () => void;
}

/**
 * One dialog at a time, opened by a button. On cancel, focus goes back to that button, or to
 * the page's content when the button is gone, so it never falls to `<body>`.
 */
export function useDialog<D extends { trigger: HTMLElement | null }>(): DialogState<D> {
  const [dialog, setDialog] = useState<D | null>(null);
  const [focusAfter, setFocusAfter] = useState<HTMLElement | null>(null);
  useEffect(() => {
    if (focusAfter?.isConnected) focusAfter.focus();
    else if (focusAfter) document.getElementById('main')?.focus();
  }, [focusAfter]);
  return {
    dialog,
    open: (make) => (event) => setDialog(make(event.currentTarget as HTMLElement)),
    cancel: () => {
      setFocusAfter(dialog?.trigger ?? null);
      setDialog(null);
    },
    close: () => setDialog(null),
  };
}

/** A page's changes and what the last one did (see {@link useChanges}). */
export interface ChangesState<R> extends ActionState {
  /** Moves on after each change: a key for the page's lists, which then load again. */
  version: number;
  /** What the last change did, or null. */
  outcome: R | null;
  /** Runs `work` as {@link ActionState.run} does and keeps what it returns as the outcome. */
  change: (work: () => Promise<R>) => Promise<void>;
  /** For the notice that says the outcome: it takes focus when `announce` says so. */
  notice: RefObject<HTMLParagraphElement | null>;
}

/**
 * Changes made from a page's dialogs and forms, one at a time. Once one is done, the page
 * keeps what it did, `finish` closes its dialog or form, the page's lists load again, and the
 * notice takes focus if `announce` says so of the outcome (a screen reader hears it).
 */
export function useChanges<R>(options: {
  finish: () => void;
  announce: (outcome: R) => boolean;
}): ChangesState<R> {
  const action = useAction();
  const [version, setVersion] = useState(0);
  const [outcome, setOutcome] = useState<R | null>(null);
  const notice = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (outcome !== null && options.announce(outcome)) notice.current?.focus();
  }, [outcome]);
  const change = (work: () => Promise<R>) =>
    action.run(async () => {
      setOutcome(await work());
      options.finish();
      setVersion((n) => n + 1);
    });
  return { ...action, version, outcome, change, notice };
}
