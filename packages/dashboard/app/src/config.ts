/** What `serveDashboard` writes into index.html's `covgate-config` meta element. */
export interface DashboardConfig {
  /** API base URL: '' for the same origin, a path, or an absolute URL. */
  api: string;
  /** Code hosts with an OAuth login route `/auth/{name}`. */
  codeHosts: string[];
  /** Path the dashboard is served under, without a trailing slash ('' at the root). */
  basePath: string;
  /** URL CI jobs reach the API at (`COVGATE_URL` of the snippets); '' = the browser's API URL. */
  publicApi: string;
}

/** Reads the configuration; the defaults fit the Vite development server. */
export function readConfig(doc: Document): DashboardConfig {
  const raw = doc.querySelector('meta[name="covgate-config"]')?.getAttribute('content') ?? '{}';
  const parsed = JSON.parse(raw) as Partial<DashboardConfig>;
  return {
    api: parsed.api ?? '',
    codeHosts: parsed.codeHosts ?? ['github'],
    basePath: parsed.basePath ?? '',
    publicApi: parsed.publicApi ?? '',
  };
}
