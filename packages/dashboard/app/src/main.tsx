import type { CurrentSession } from '@covgate/client';
import { render } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { apiUrlOf, createClient, describeError, isSignedOut } from './api.js';
import { OrgSwitcher } from './components/OrgSwitcher.js';
import { ErrorState, Link, Loading, RateLimitBanner, UnreachableBanner } from './components/ui.js';
import { readConfig } from './config.js';
import { App, type AppContext } from './context.js';
import { runRequest } from './hooks.js';
import { inviteNotice, inviteOutcomeIn, searchWithoutInvite } from './invite-notice.js';
import { Members } from './pages/Members.js';
import { Onboarding } from './pages/Onboarding.js';
import { Repo } from './pages/Repo.js';
import { Repos } from './pages/Repos.js';
import { Run } from './pages/Run.js';
import { RunFile } from './pages/RunFile.js';
import { SignIn } from './pages/SignIn.js';
import { Tokens } from './pages/Tokens.js';
import { canManageTokens } from './roles.js';
import { href, pathOf, type Route, setBasePath, useRoute } from './router.js';
import './styles.css';

const config = readConfig(document);
setBasePath(config.basePath);
const apiUrl = apiUrlOf(config, window.location);
const client = createClient(apiUrl, window.location);
const ciUrl = config.publicApi || apiUrl;
// Read once and taken out of the address bar: a reload or a shared link must not say it again.
const inviteOutcome = inviteOutcomeIn(window.location.search);
if (inviteOutcome !== null) {
  const { pathname, search, hash } = window.location;
  window.history.replaceState(
    window.history.state,
    '',
    `${pathname}${searchWithoutInvite(search)}${hash}`,
  );
}

type SessionState =
  | { state: 'loading' }
  | { state: 'waiting'; message: string }
  | { state: 'signed-in'; session: CurrentSession }
  | { state: 'signed-out'; message?: string }
  | { state: 'error'; message: string };

function titleOf(route: Route): string {
  switch (route.page) {
    case 'repo':
      return `${route.repo} · covgate`;
    case 'run':
      return `Run of ${route.repo} · covgate`;
    case 'run-file':
      return `${route.path} in a run of ${route.repo} · covgate`;
    case 'tokens':
      return 'API tokens · covgate';
    case 'members':
      return 'Members · covgate';
    case 'onboarding':
      return 'Add a repository · covgate';
    case 'not-found':
      return 'Not found · covgate';
    default:
      return 'Repositories · covgate';
  }
}

function Page(props: { route: Route }) {
  switch (props.route.page) {
    case 'repo':
      return <Repo repo={props.route.repo} filters={props.route.filters} key={props.route.repo} />;
    case 'run':
      return <Run repo={props.route.repo} id={props.route.id} key={props.route.id} />;
    case 'run-file':
      return (
        <RunFile
          repo={props.route.repo}
          id={props.route.id}
          path={props.route.path}
          key={`${props.route.id}\u0000${props.route.path}`}
        />
      );
    case 'tokens':
      return <Tokens />;
    case 'members':
      return <Members />;
    case 'onboarding':
      return <Onboarding />;
    case 'not-found':
      return (
        <section>
          <h1>Page not found</h1>
          <p>
            <Link to="/">Back to the repositories</Link>
          </p>
        </section>
      );
    default:
      return <Repos />;
  }
}

function Dashboard() {
  const route = useRoute();
  const [session, setSession] = useState<SessionState>({ state: 'loading' });
  const [attempt, setAttempt] = useState(0);
  const [signingOut, setSigningOut] = useState<string | null>(null);
  const [joined, setJoined] = useState(inviteOutcome);
  const main = useRef<HTMLElement>(null);

  // Not `useLoad`: the session is also set by signing out and switching organisation, and a
  // retry keeps what the page shows until the answer comes.
  useEffect(
    () =>
      runRequest((signal) => client.getCurrentSession({ signal }), {
        onValue: (value) => setSession({ state: 'signed-in', session: value }),
        onError: (error, wait) => {
          if (isSignedOut(error)) setSession({ state: 'signed-out' });
          // Keep the app and say how long: a refused reload must not blank the page.
          else if (wait !== null) setSession({ state: 'waiting', message: describeError(error) });
          else setSession({ state: 'error', message: describeError(error) });
        },
        retry: () => setAttempt((n) => n + 1),
      }),
    [attempt],
  );

  const showsSignIn = session.state === 'signed-out';
  useEffect(() => {
    // The sign-in page stands in for whatever page was asked for.
    document.title = showsSignIn ? 'Sign in · covgate' : titleOf(route);
    main.current?.focus({ preventScroll: true });
  }, [
    showsSignIn,
    route.page,
    route.page === 'repo' || route.page === 'run' || route.page === 'run-file' ? route.repo : '',
    route.page === 'run' || route.page === 'run-file' ? route.id : '',
    route.page === 'run-file' ? route.path : '',
  ]);

  // A bare `#main` resolves against `<base href>` and would load the app's root page: the
  // link names the current page, and a click only moves focus.
  const skipToContent = (event: MouseEvent) => {
    event.preventDefault();
    const target = main.current ?? document.getElementById('main');
    target?.focus();
    target?.scrollIntoView();
  };

  const context = useMemo<AppContext | null>(
    () =>
      session.state === 'signed-in'
        ? {
            client,
            session: session.session,
            apiUrl,
            ciUrl,
            signedOut: (message = 'Your session ended. Sign in again.') =>
              setSession({ state: 'signed-out', message }),
            sessionChanged: (next) => setSession({ state: 'signed-in', session: next }),
          }
        : null,
    [session],
  );

  if (session.state === 'loading') {
    return (
      <main id="main" class="boot">
        <Loading what="your session" />
      </main>
    );
  }
  if (session.state === 'waiting') {
    return (
      <>
        <header class="top">
          <span class="brand">covgate</span>
        </header>
        <RateLimitBanner />
        <main id="main" class="boot">
          <p class="state notice" role="status">
            {session.message} Your session loads when the wait is over.
          </p>
        </main>
      </>
    );
  }
  if (session.state === 'error') {
    return (
      <main id="main">
        <ErrorState message={session.message} onRetry={() => setAttempt((n) => n + 1)} />
      </main>
    );
  }
  if (session.state === 'signed-out' || !context) {
    return (
      <SignIn
        loginUrl={(codeHost) => client.loginUrl({ codeHost })}
        codeHosts={config.codeHosts}
        message={session.state === 'signed-out' ? session.message : undefined}
      />
    );
  }

  const signOut = async () => {
    setSigningOut('Signing out…');
    try {
      await client.deleteSession({ session_id: context.session.session_id });
      setSession({ state: 'signed-out', message: 'You are signed out.' });
      setSigningOut(null);
    } catch (error) {
      if (isSignedOut(error)) setSession({ state: 'signed-out', message: 'You are signed out.' });
      setSigningOut(isSignedOut(error) ? null : describeError(error));
    }
  };

  return (
    <App.Provider value={context}>
      <a class="skip" href={`${href(pathOf(route))}#main`} onClick={skipToContent}>
        Skip to content
      </a>
      <header class="top">
        <Link to="/" class="brand">
          covgate
        </Link>
        <nav aria-label="Main">
          <Link to="/">Repositories</Link>
          <Link to="/members">Members</Link>
          {canManageTokens(context.session.role) ? <Link to="/tokens">Tokens</Link> : null}
        </nav>
        <OrgSwitcher key={context.session.org_id} />
        <button type="button" class="signout" onClick={signOut}>
          Sign out
        </button>
      </header>
      <RateLimitBanner />
      <UnreachableBanner />
      {joined ? (
        <div class="state success joined" role="status" data-testid="invite-joined">
          <p>{inviteNotice(joined, context.session)}</p>
          <button type="button" onClick={() => setJoined(null)}>
            Dismiss
          </button>
        </div>
      ) : null}
      {signingOut && signingOut !== 'Signing out…' ? <ErrorState message={signingOut} /> : null}
      <main id="main" tabIndex={-1} ref={main}>
        {/* A switch of organisation starts every page afresh. */}
        <Page route={route} key={context.session.org_id} />
      </main>
    </App.Provider>
  );
}

const root = document.getElementById('app') as HTMLElement;
root.textContent = '';
render(<Dashboard />, root);
