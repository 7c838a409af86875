import type { ServerConfig } from './config.js';

/** Path the reference server serves the dashboard under. */
export const DASHBOARD_PATH = '/dashboard';

/**
 * `PUBLIC_URL`, by default `http://localhost:<PORT>`: where browsers and CI jobs reach this
 * server. The default redirect URL of the OAuth login, the default dashboard URL, sign-in
 * links and the URL the dashboard's onboarding snippets give CI jobs all start with it.
 */
export function publicUrlOf(config: ServerConfig): string {
  return config.publicUrl ?? `http://localhost:${config.port}`;
}

/** `DASHBOARD_URL`, by default the dashboard this server serves: `<PUBLIC_URL>/dashboard/`. */
export function dashboardUrlOf(config: ServerConfig): string {
  return config.dashboardUrl ?? `${publicUrlOf(config)}${DASHBOARD_PATH}/`;
}
