import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { formatCountdown, VERDICT_LABEL, verdictOf } from '../format.js';
import type { Load } from '../hooks.js';
import { useRateLimit } from '../rate-limit.js';
import { href, onLinkClick } from '../router.js';
import { retryEverything, useReachability } from '../unreachable.js';

/** An in-app link (no reload). */
export function Link(props: { to: string; children: ComponentChildren; class?: string }) {
  return (
    <a href={href(props.to)} onClick={onLinkClick} class={props.class}>
      {props.children}
    </a>
  );
}

/** Loading state. */
export function Loading(props: { what: string }) {
  return (
    <p class="state loading" role="status" aria-live="polite">
      Loading {props.what}…
    </p>
  );
}

/** Error state with a retry. */
export function ErrorState(props: { message: string; onRetry?: () => void }) {
  return (
    <div class="state error" role="alert">
      <p>{props.message}</p>
      {props.onRetry ? (
        <button type="button" onClick={props.onRetry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}

/**
 * What a request shows until its value is ready: {@link Loading}, or its error with a retry;
 * nothing when the server did not answer at all, which {@link UnreachableBanner} says once.
 */
export function LoadStatus(props: { load: Load<unknown>; what: string; onRetry: () => void }) {
  if (props.load.state === 'loading') return <Loading what={props.what} />;
  if (props.load.state === 'error' && !props.load.unreachable) {
    return <ErrorState message={props.load.message} onRetry={props.onRetry} />;
  }
  return null;
}

/**
 * While the server cannot be reached, one error above the page for all its parts, whose
 * "Try again" reloads every one of them.
 */
export function UnreachableBanner() {
  const { unreachable } = useReachability();
  if (!unreachable) return null;
  return (
    <div class="banner-error" data-testid="unreachable">
      <ErrorState
        message="The covgate server could not be reached. Check your connection and try again."
        onRetry={retryEverything}
      />
    </div>
  );
}

/** The run's verdict as a word in a coloured tag (`No baseline` when nothing was compared). */
export function OutcomeTag(props: { execution: Parameters<typeof verdictOf>[0] }) {
  const verdict = verdictOf(props.execution);
  return <span class={`outcome outcome-${verdict}`}>{VERDICT_LABEL[verdict]}</span>;
}

/** Copies `text` to the clipboard, saying so for screen readers too. */
export function CopyButton(props: { text: string; label: string }) {
  const [copied, setCopied] = useState<'idle' | 'copied' | 'failed'>('idle');
  const timer = useRef<number | undefined>(undefined);
  useEffect(() => () => window.clearTimeout(timer.current), []);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.text);
      setCopied('copied');
    } catch {
      setCopied('failed');
    }
    window.clearTimeout(timer.current);
    timer.current = window.setTimeout(() => setCopied('idle'), 2000);
  };
  return (
    <button type="button" class="copy" onClick={copy} aria-label={`Copy ${props.label}`}>
      {copied === 'copied' ? 'Copied' : copied === 'failed' ? 'Select and copy' : 'Copy'}
      <span class="visually-hidden" aria-live="polite">
        {copied === 'copied' ? `${props.label} copied` : ''}
      </span>
    </button>
  );
}

/** A block of code or text to copy. */
export function CodeBlock(props: { code: string; label: string }) {
  return (
    <figure class="code-block" aria-label={props.label}>
      <pre>
        <code>{props.code}</code>
      </pre>
      <CopyButton text={props.code} label={props.label} />
    </figure>
  );
}

/** A one-time secret: shown once, with a copy button and a warning. */
export function SecretPanel(props: {
  secret: string;
  title: string;
  children?: ComponentChildren;
}) {
  const ref = useRef<HTMLElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <section class="secret" aria-label={props.title} tabIndex={-1} ref={ref}>
      <h3>{props.title}</h3>
      <p class="warning">
        <strong>Copy it now.</strong> This is the only time covgate shows this token; it keeps only
        a hash of it.
      </p>
      <div class="code-block">
        <code class="secret-value" data-testid="secret">
          {props.secret}
        </code>
        <CopyButton text={props.secret} label="token" />
      </div>
      {props.children}
    </section>
  );
}

/**
 * While the server asks the dashboard to wait (a `429`), a banner above the page says so
 * and counts down to the retry; the page itself stays as it was.
 */
export function RateLimitBanner() {
  const until = useRateLimit();
  const [, setTicks] = useState(0);
  useEffect(() => {
    if (until === null) return;
    const tick = window.setInterval(() => setTicks((n) => n + 1), 1000);
    return () => window.clearInterval(tick);
  }, [until]);
  if (until === null) return null;
  // Read the clock at each render: a time kept in state since an earlier wait (or since the
  // banner mounted) made the first frame of a new wait show more than the server asked for.
  return (
    <div class="banner" role="status" data-testid="rate-limit">
      <p>
        <strong>Too many requests.</strong> The server asked this dashboard to slow down; it tries
        again in <span class="countdown">{formatCountdown(until - Date.now())}</span>.
      </p>
    </div>
  );
}
