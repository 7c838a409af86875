import type { ComponentChildren } from 'preact';
import { useLayoutEffect, useRef } from 'preact/hooks';

/**
 * A confirmation dialog: focus on **Cancel** when it opens, Escape cancels. The caller puts
 * focus back on the button that opened it when it closes.
 */
export function Confirm(props: {
  title: string;
  text: string;
  confirm: string;
  busy: boolean;
  onCancel: () => void;
  onConfirm: () => void;
  children?: ComponentChildren;
  /** The confirm button's look: `danger` (default) for what cannot be undone. */
  tone?: 'danger' | 'primary';
}) {
  const first = useRef<HTMLButtonElement>(null);
  const cancel = useRef(props.onCancel);
  cancel.current = props.onCancel;
  // Before the browser paints: a key pressed as soon as the dialog shows must reach it.
  useLayoutEffect(() => {
    first.current?.focus();
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') cancel.current();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
  return (
    <div class="confirm" role="alertdialog" aria-labelledby="confirm-title">
      <h2 id="confirm-title">{props.title}</h2>
      <p>{props.text}</p>
      {props.children}
      <div class="buttons">
        <button type="button" onClick={props.onCancel} ref={first}>
          Cancel
        </button>
        <button
          type="button"
          class={props.tone ?? 'danger'}
          onClick={props.onConfirm}
          disabled={props.busy}
        >
          {props.busy ? 'Working…' : props.confirm}
        </button>
      </div>
    </div>
  );
}
