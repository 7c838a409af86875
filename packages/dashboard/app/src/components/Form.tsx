import type { ComponentChildren, InputHTMLAttributes } from 'preact';

/** A form the app handles itself: submitting it calls `onSubmit` instead of loading a page. */
export function Form(props: {
  class: string;
  /** Its accessible name, where the page has more than one form. */
  label?: string;
  onSubmit: () => void;
  children: ComponentChildren;
}) {
  return (
    <form
      class={props.class}
      aria-label={props.label}
      onSubmit={(event) => {
        event.preventDefault();
        props.onSubmit();
      }}
    >
      {props.children}
    </form>
  );
}

/** A labelled text box whose value, at each keystroke, goes to `onValue`. */
export function TextField(props: {
  label: string;
  name: string;
  value: string;
  onValue: (value: string) => void;
  type?: 'text' | 'search' | 'password' | 'url';
  required?: boolean;
  maxLength?: number;
  pattern?: string;
  placeholder?: string;
  autoComplete?: 'off';
  spellcheck?: boolean;
  'aria-describedby'?: string;
  /** When the value is committed (Enter, or focus leaving a changed box). */
  onChange?: () => void;
}) {
  const { label, onValue, ...attributes } = props;
  // Preact types an input's attributes by its `type`, one at a time; these suit every text type.
  const input = attributes as InputHTMLAttributes<HTMLInputElement>;
  return (
    <label>
      {label}
      <input {...input} onInput={(event) => onValue((event.target as HTMLInputElement).value)} />
    </label>
  );
}
