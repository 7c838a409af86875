import type { CovgateClient, CurrentSession } from '@covgate/client';
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';

/** What every page of a signed-in user needs. */
export interface AppContext {
  client: CovgateClient;
  session: CurrentSession;
  /** Absolute API URL without a trailing slash. */
  apiUrl: string;
  /** The API URL CI jobs use (`COVGATE_URL` of the snippets): the server's public URL. */
  ciUrl: string;
  /** Call when a request answered 401: the app shows the sign-in page (with `message`). */
  signedOut: (message?: string) => void;
  /** Call with the session the API answered after a change (organisation, role). */
  sessionChanged: (session: CurrentSession) => void;
}

export const App = createContext<AppContext | null>(null);

/** The signed-in context; pages render only inside it. */
export function useApp(): AppContext {
  const app = useContext(App);
  if (!app) throw new Error('useApp outside a signed-in app');
  return app;
}
