import { useEffect, useRef } from 'preact/hooks';
import { codeHostName } from '../components/CodeHostLink.js';

/** The sign-in page: one button per code host with an OAuth route on the API. */
export function SignIn(props: {
  /** The URL that starts the login at a code host: the client's `loginUrl`. */
  loginUrl: (codeHost: string) => string;
  codeHosts: string[];
  message?: string;
}) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <main class="signin" id="main">
      <h1 tabIndex={-1} ref={heading}>
        Sign in to covgate
      </h1>
      <p>Coverage history, API tokens and setup for your organisation.</p>
      {props.message ? (
        <p class="state notice" role="status">
          {props.message}
        </p>
      ) : null}
      {props.codeHosts.length === 0 ? (
        <p class="state notice" data-testid="no-code-host">
          This server has no code-host login configured (for GitHub: <code>GITHUB_CLIENT_ID</code>{' '}
          and <code>GITHUB_CLIENT_SECRET</code>). Sign in with a link instead.
        </p>
      ) : (
        <ul class="signin-hosts">
          {props.codeHosts.map((host) => (
            <li key={host}>
              <a class="button primary" href={props.loginUrl(host)}>
                Sign in with {codeHostName(host) ?? host}
              </a>
            </li>
          ))}
        </ul>
      )}
      <section class="signin-other" aria-labelledby="signin-link-title">
        <h2 id="signin-link-title">
          {props.codeHosts.length === 0 ? 'Sign in with a link' : 'Or sign in with a link'}
        </h2>
        <p data-testid="link-advice">
          Whoever runs this server makes you a link of your own, usable once within 15 minutes:{' '}
          <code>covgate-admin login-link &lt;organisation&gt; --name "&lt;your name&gt;"</code> (
          <code>pnpm admin …</code> in a clone of covgate). It signs you in as a new member, never
          as the person who made it. A development server prints one for its administrator when it
          starts.
        </p>
        <p data-testid="invite-advice">
          <strong>Invited?</strong> Open the invite link and choose <strong>Join</strong> first,
          then sign in here or with a link made for you: you join as yourself, with the role of the
          invite.
        </p>
      </section>
    </main>
  );
}
