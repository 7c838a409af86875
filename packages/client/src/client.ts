import createClient, { type Client } from 'openapi-fetch';
import { CovgateApiError } from './errors.js';
import type { paths } from './generated/openapi.js';
import {
  abortableSleep,
  backoffDelayMs,
  isIdempotentRequest,
  parseRetryAfterSeconds,
  type ResolvedRetryOptions,
  type RetryOptions,
  resolveRetryOptions,
} from './retry.js';
import { attemptRecordOf, createRetryingFetch, type RetryEvent } from './retrying-fetch.js';
import type {
  AcceptInviteInput,
  BadgeParams,
  ChangeMemberRoleInput,
  CodeHostLink,
  CodeHostLinkInput,
  CreatedInvite,
  CreatedOrganisation,
  CreatedSession,
  CreatedToken,
  CreateInviteInput,
  CreateOrganisationInput,
  CreateSessionInput,
  CreateTokenInput,
  CurrentSession,
  Execution,
  ExecutionDetail,
  ExecutionInput,
  ExecutionList,
  ExecutionSeries,
  ExecutionSeriesQuery,
  FileLines,
  FileSource,
  FinishCommitInput,
  GithubLink,
  Health,
  InviteList,
  LinkGithubOrganisationInput,
  ListExecutionsQuery,
  ListRepositoriesQuery,
  Member,
  MemberList,
  OrganisationLink,
  OrganisationLinkInput,
  OrganisationSettings,
  OrganisationSettingsInput,
  Ready,
  RepoHeadline,
  RepoHeadlineQuery,
  RepositoryLink,
  RepositoryLinkInput,
  RepositoryList,
  RepositorySettings,
  RepositorySettingsInput,
  RotatedToken,
  RotateTokenInput,
  SkipCommitInput,
  SwitchOrganisationInput,
  Token,
  TokenList,
  TrustedCiJob,
  UpdateTokenInput,
  ValidatedToken,
  ValidateTokenInput,
} from './types.js';

/** Options of {@link createCovgateClient}. */
export interface CovgateClientOptions {
  /** Where the API is, e.g. `http://localhost:8080` or `https://example.com/covgate/` (a trailing slash is fine). */
  baseUrl: string;
  /** An API token (`cvg_...`), a session token (`cvgs_...`) or the service token; sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** The fetch to use; default `globalThis.fetch`. It is called with one `Request`. */
  fetch?: (request: Request) => Promise<Response>;
  /** `credentials` of every request; `'same-origin'` or `'include'` for cookie sessions in a browser. */
  credentials?: RequestCredentials;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
  /** Retry policy; see {@link RetryOptions}. */
  retry?: RetryOptions;
  /**
   * Time-out of each attempt in milliseconds, from sending the request to the last byte of the
   * answer; an attempt that runs out of time counts as a network error (retried where those
   * are). Default: none (the platform's own limits apply).
   */
  timeoutMs?: number;
  /** `User-Agent` of every request in Node; ignored in browsers. */
  userAgent?: string;
  /** Called before each retry (for progress messages); see {@link RetryEvent}. */
  onRetry?: (event: RetryEvent) => void;
  /** How the client waits between attempts; default a timer that the call's `signal` interrupts. For tests. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Source of the back-off jitter, a number in [0, 1); default `Math.random`. For tests. */
  random?: () => number;
  /** The clock in milliseconds that errors' `elapsedMs` is measured with; default `Date.now`. For tests. */
  now?: () => number;
}

/** What {@link CovgateClient.loginUrl} takes. */
export interface LoginUrlParams {
  /** A code host with an OAuth login route on the server, e.g. `github` (a key of the server's `oauth.codeHosts`). */
  codeHost: string;
}

/** Per-call options every method takes. */
export interface CallOptions {
  /** Aborts the call, including a wait between retries; the call then rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** The typed client of the covgate API; every method is named after the `operationId` of its route. */
export interface CovgateClient {
  /** `GET /health`: liveness, no authentication. */
  getHealth(options?: CallOptions): Promise<Health>;
  /** `GET /health/ready`: readiness of the store (and Redis); `503 not ready` throws a {@link CovgateApiError}. */
  getReadiness(options?: CallOptions): Promise<Ready>;
  /** `POST /v1/auth/validate`: validates the client's API token, or `body.token` when given. */
  validateToken(args?: { body?: ValidateTokenInput } & CallOptions): Promise<ValidatedToken>;
  /**
   * `GET /v1/executions`: a page of a repository's runs, newest first. Pass `cursor: ''` to
   * get `next_cursor`, then the previous page's `next_cursor` until it is `null`.
   */
  listExecutions(args: ListExecutionsQuery & CallOptions): Promise<ExecutionList>;
  /**
   * `GET /v1/executions/series`: a repository's newest runs (up to 1 000) in one answer,
   * oldest first, each as `[created_at, coverage, outcome, branch, delta]`, for a history chart.
   */
  getExecutionSeries(args: ExecutionSeriesQuery & CallOptions): Promise<ExecutionSeries>;
  /**
   * `POST /v1/executions`: records a run and returns it with the gate's outcome. Sends an
   * `Idempotency-Key` (`idempotencyKey`, or a new UUID) that stays the same across the
   * client's retries, so this call is retried on `5xx` and network errors.
   */
  createExecution(
    args: {
      body: ExecutionInput;
      idempotencyKey?: string;
      /**
       * Gzip for the body's JSON text (Node's `zlib.gzipSync`, for one): the body is then sent
       * with `Content-Encoding: gzip`, which a long `files` list needs (1 MiB on the wire).
       */
      gzip?: (json: string) => Uint8Array;
    } & CallOptions,
  ): Promise<Execution>;
  /** `GET /v1/executions/{id}`: one run of the organisation with its per-file list. */
  getExecution(args: { id: string } & CallOptions): Promise<ExecutionDetail>;
  /**
   * `GET /v1/executions/{id}/files/{path}`: one file's covered, missed and changed lines
   * (`path` as in the run's file list; the client percent-encodes it).
   */
  getExecutionFile(args: { id: string; path: string } & CallOptions): Promise<FileLines>;
  /**
   * `GET /v1/executions/{id}/files/{path}/source`: the file's text at the run's commit from the
   * linked code host, or `text: null` and why there is none.
   */
  getExecutionFileSource(args: { id: string; path: string } & CallOptions): Promise<FileSource>;
  /**
   * `POST /v1/executions/finish`: closes a commit's report sent in parts (no more parts are
   * coming) and returns the commit's run as judged.
   */
  finishCommit(args: { body: FinishCommitInput } & CallOptions): Promise<Execution>;
  /**
   * `POST /v1/executions/skip`: records that a commit has nothing to measure (outcome
   * `skipped`, no coverage); a linked repository's statuses go `success` with the reason and
   * the base branch's figure.
   */
  skipCommit(args: { body: SkipCommitInput } & CallOptions): Promise<Execution>;
  /**
   * `GET /v1/repos/headline`: a repository's base-branch coverage now, its change over 30 days,
   * its last failing run, its components and its code-host URL, for one component (the runs
   * without one when `component` is absent or empty).
   */
  getRepoHeadline(args: RepoHeadlineQuery & CallOptions): Promise<RepoHeadline>;
  /** `GET /v1/repos/settings`: a repository's default patch target. */
  getRepoSettings(args: { org: string; repo: string } & CallOptions): Promise<RepositorySettings>;
  /**
   * `GET /v1/repos/ci-trust`: with a CI job's OIDC ID token as the client's token, whether
   * `repo` of `org` takes the job's runs (`403` when it does not), without posting one.
   */
  getCiTrust(args: { org: string; repo: string } & CallOptions): Promise<TrustedCiJob>;
  /** `PATCH /v1/repos/settings`: sets a repository's default patch target (`null`: 80). */
  setRepoSettings(
    args: { body: RepositorySettingsInput } & CallOptions,
  ): Promise<RepositorySettings>;
  /** `POST /v1/organisations`: needs the service token. */
  createOrganisation(
    args: { body: CreateOrganisationInput } & CallOptions,
  ): Promise<CreatedOrganisation>;
  /** `GET /v1/repos`: the organisation's repositories, most recently active first. */
  listRepositories(args: ListRepositoriesQuery & CallOptions): Promise<RepositoryList>;
  /** `GET /v1/session`: the session presented (Bearer session token or cookie), its role and the user's organisations. */
  getCurrentSession(options?: CallOptions): Promise<CurrentSession>;
  /** `POST /v1/session/organisation`: the session acts for another of its user's organisations (by slug). */
  switchOrganisation(
    args: { body: SwitchOrganisationInput } & CallOptions,
  ): Promise<CurrentSession>;
  /** `GET /v1/members`: the members of the session's organisation, oldest first. */
  listMembers(options?: CallOptions): Promise<MemberList>;
  /** `PATCH /v1/members/{user_id}`: changes a member's role (owners only). */
  changeMemberRole(
    args: { user_id: string; body: ChangeMemberRoleInput } & CallOptions,
  ): Promise<Member>;
  /** `DELETE /v1/members/{user_id}`: removes a member (owners), or leaves (your own id). */
  removeMember(args: { user_id: string } & CallOptions): Promise<void>;
  /** `GET /v1/organisation/github-link`: the organisation's link to a GitHub organisation (404: none). */
  getGithubLink(options?: CallOptions): Promise<GithubLink>;
  /** `POST /v1/organisation/github-link`: links the organisation to a GitHub organisation (owners). */
  linkGithubOrganisation(
    args: { body: LinkGithubOrganisationInput } & CallOptions,
  ): Promise<GithubLink>;
  /** `DELETE /v1/organisation/github-link`: removes the link; its members stay (owners). */
  unlinkGithubOrganisation(options?: CallOptions): Promise<void>;
  /**
   * `GET /v1/organisation/code-host-link`: the organisation's link to a GitHub or Gitea
   * organisation or a GitLab group (404: none).
   */
  getOrganisationLink(options?: CallOptions): Promise<OrganisationLink>;
  /** `POST /v1/organisation/code-host-link`: links the organisation, whatever the host (owners). */
  linkOrganisation(args: { body: OrganisationLinkInput } & CallOptions): Promise<OrganisationLink>;
  /** `DELETE /v1/organisation/code-host-link`: removes the link; its members stay (owners). */
  unlinkOrganisation(options?: CallOptions): Promise<void>;
  /** `GET /v1/organisation/settings`: the organisation's minimums (any member, or an `execute` token). */
  getOrganisationSettings(options?: CallOptions): Promise<OrganisationSettings>;
  /** `PATCH /v1/organisation/settings`: sets the organisation's minimums (owners). */
  setOrganisationSettings(
    args: { body: OrganisationSettingsInput } & CallOptions,
  ): Promise<OrganisationSettings>;
  /**
   * `GET /v1/repos/github-link`: the repository's link to a GitHub repository, with its
   * token's hint and latest failed deliveries (admins and owners; 404: none).
   */
  getRepositoryLink(args: { org: string; repo: string } & CallOptions): Promise<RepositoryLink>;
  /** `POST /v1/repos/github-link`: links the repository (or replaces its link and token). */
  linkRepository(
    args: { org: string; repo: string; body: RepositoryLinkInput } & CallOptions,
  ): Promise<RepositoryLink>;
  /** `DELETE /v1/repos/github-link`: removes the link and its token. */
  unlinkRepository(args: { org: string; repo: string } & CallOptions): Promise<void>;
  /**
   * `GET /v1/repos/code-host-link`: the repository's link to its code host (GitHub, GitLab,
   * Gitea), with its token's hint and latest failed deliveries (admins and owners; 404: none).
   */
  getCodeHostLink(args: { org: string; repo: string } & CallOptions): Promise<CodeHostLink>;
  /** `POST /v1/repos/code-host-link`: links the repository to any host (or replaces its link). */
  linkCodeHost(
    args: { org: string; repo: string; body: CodeHostLinkInput } & CallOptions,
  ): Promise<CodeHostLink>;
  /** `DELETE /v1/repos/code-host-link`: removes the link, whatever its host, and its token. */
  unlinkCodeHost(args: { org: string; repo: string } & CallOptions): Promise<void>;
  /** `GET /v1/invites`: the organisation's invites, newest first (owners). */
  listInvites(options?: CallOptions): Promise<InviteList>;
  /** `POST /v1/invites`: a single-use, 7-day invite; its `token` and `url` are in this answer only (owners). */
  createInvite(args?: { body?: CreateInviteInput } & CallOptions): Promise<CreatedInvite>;
  /** `DELETE /v1/invites/{id}`: revokes an invite (owners). */
  revokeInvite(args: { id: string } & CallOptions): Promise<void>;
  /** `POST /v1/invites/accept`: joins the invite's organisation; the session then acts for it. */
  acceptInvite(args: { body: AcceptInviteInput } & CallOptions): Promise<CurrentSession>;
  /** `POST /v1/sessions/create`: needs the service token; returns the one-time session token. */
  createSession(args: { body: CreateSessionInput } & CallOptions): Promise<CreatedSession>;
  /** `DELETE /v1/sessions/{session_id}`: logs out (the session's own credential or the service token). */
  deleteSession(args: { session_id: string } & CallOptions): Promise<void>;
  /** `GET /v1/tokens`: the organisation's API tokens (sessions only). */
  listTokens(options?: CallOptions): Promise<TokenList>;
  /** `POST /v1/tokens`: a new API token; `secret` is in this answer only. */
  createToken(args: { body: CreateTokenInput } & CallOptions): Promise<CreatedToken>;
  /** `GET /v1/tokens/{id}`: one API token. */
  getToken(args: { id: string } & CallOptions): Promise<Token>;
  /** `PATCH /v1/tokens/{id}`: renames a token or changes its scopes. */
  updateToken(args: { id: string; body: UpdateTokenInput } & CallOptions): Promise<Token>;
  /** `DELETE /v1/tokens/{id}`: revokes a token (again is fine). */
  revokeToken(args: { id: string } & CallOptions): Promise<void>;
  /** `POST /v1/tokens/{id}/rotate`: a new secret; the old one lives on for the grace period. */
  rotateToken(args: { id: string; body?: RotateTokenInput } & CallOptions): Promise<RotatedToken>;
  /** `GET /v1/badge/{org}/{repo}`: the SVG badge as text. */
  getBadge(args: BadgeParams & CallOptions): Promise<string>;
  /** The absolute URL of a badge, for an `<img src>` or a README; makes no request. */
  badgeUrl(args: BadgeParams): string;
  /**
   * The URL that starts a browser login through a code host (`GET /auth/{code_host}`), for a
   * "Sign in" link; makes no request. The server answers it with a redirect to the code host
   * and, after the callback, sends the browser to its configured dashboard URL. That target
   * is fixed on the server (so the route cannot be an open redirect): no return path can be
   * passed here.
   *
   * @example
   * ```ts
   * createCovgateClient({ baseUrl: 'https://api.example.com/covgate/' }).loginUrl({ codeHost: 'github' });
   * // 'https://api.example.com/covgate/auth/github'
   * ```
   */
  loginUrl(args: LoginUrlParams): string;
  /** The underlying openapi-fetch client (same base URL, headers and retries, but it does not throw on error statuses). */
  readonly raw: Client<paths>;
}

type Outcome<T> = { data?: T; error?: unknown; response: Response };

/**
 * Creates a typed client of the covgate API.
 *
 * @example
 * ```ts
 * const client = createCovgateClient({ baseUrl: 'http://localhost:8080', token: process.env.COVGATE_TOKEN });
 * const run = await client.createExecution({ body: { repo: 'web', branch: 'main', coverage: 84.13 } });
 * console.log(run.outcome, run.delta);
 * ```
 */
export function createCovgateClient(options: CovgateClientOptions): CovgateClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const retry: ResolvedRetryOptions = resolveRetryOptions(options.retry);
  const random = options.random ?? Math.random;
  const sleep = options.sleep ?? abortableSleep;
  const now = options.now ?? (() => Date.now());
  if (
    options.timeoutMs !== undefined &&
    !(Number.isFinite(options.timeoutMs) && options.timeoutMs > 0)
  ) {
    throw new RangeError(
      `timeoutMs must be a positive number of milliseconds: ${options.timeoutMs}`,
    );
  }
  const baseFetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));

  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers.Authorization = `Bearer ${options.token}`;
  if (options.userAgent !== undefined && typeof document === 'undefined') {
    headers['User-Agent'] = options.userAgent;
  }

  const fetchWithRetries = createRetryingFetch({
    fetch: baseFetch,
    retry,
    sleep,
    now,
    isRetryable: isIdempotentRequest,
    delayFor: (attempt) => backoffDelayMs(attempt, retry, random),
    parseRetryAfter: (value) => parseRetryAfterSeconds(value, now()),
    ...(options.onRetry ? { onRetry: options.onRetry } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
  });

  const raw = createClient<paths>({
    baseUrl,
    fetch: fetchWithRetries,
    headers,
    ...(options.credentials ? { credentials: options.credentials } : {}),
  });
  // A success that is not JSON where JSON is expected comes from something other than the
  // API (a website, a login page of a proxy): an error that says so, not a JSON SyntaxError.
  raw.use({
    onResponse({ response, options: call }) {
      if (call.parseAs !== 'json' || !response.ok || response.status === 204) return undefined;
      if (response.headers.get('Content-Length') === '0') return undefined;
      if (/[/+]json\b/i.test(response.headers.get('Content-Type') ?? '')) return undefined;
      throw apiError(response, undefined, now());
    },
  });

  async function unwrap<T>(call: Promise<Outcome<T>>): Promise<T> {
    const { data, error, response } = await call;
    if (!response.ok) throw apiError(response, error, now());
    return data as T;
  }

  function badgeUrl({ org, repo, ...query }: BadgeParams): string {
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) {
      if (value !== undefined) search.set(key, String(value));
    }
    const qs = search.toString();
    return `${baseUrl}/v1/badge/${encodeURIComponent(org)}/${encodeURIComponent(repo)}${qs ? `?${qs}` : ''}`;
  }

  return {
    raw,
    badgeUrl,
    loginUrl: ({ codeHost }) => `${baseUrl}/auth/${encodeURIComponent(codeHost)}`,
    getHealth: (o = {}) => unwrap(raw.GET('/health', { signal: o.signal })),
    getReadiness: (o = {}) => unwrap(raw.GET('/health/ready', { signal: o.signal })),
    validateToken: ({ body, signal } = {}) =>
      unwrap(raw.POST('/v1/auth/validate', { ...(body ? { body } : {}), signal })),
    listExecutions: ({ signal, ...query }) =>
      unwrap(raw.GET('/v1/executions', { params: { query }, signal })),
    // openapi-fetch widens the points' tuples to arrays; the document's schema is the tuple.
    getExecutionSeries: ({ signal, ...query }) =>
      unwrap(
        raw.GET('/v1/executions/series', { params: { query }, signal }),
      ) as Promise<ExecutionSeries>,
    createExecution: ({ body, idempotencyKey, signal, gzip }) =>
      unwrap(
        raw.POST('/v1/executions', {
          body,
          headers: {
            'Idempotency-Key': idempotencyKey ?? randomUUID(),
            ...(gzip ? { 'Content-Encoding': 'gzip' } : {}),
          },
          ...(gzip ? { bodySerializer: (value: unknown) => gzip(JSON.stringify(value)) } : {}),
          signal,
        }),
      ),
    getExecution: ({ id, signal }) =>
      unwrap(raw.GET('/v1/executions/{id}', { params: { path: { id } }, signal })),
    getExecutionFile: ({ id, path, signal }) =>
      unwrap(
        raw.GET('/v1/executions/{id}/files/{path}', { params: { path: { id, path } }, signal }),
      ),
    getExecutionFileSource: ({ id, path, signal }) =>
      unwrap(
        raw.GET('/v1/executions/{id}/files/{path}/source', {
          params: { path: { id, path } },
          signal,
        }),
      ),
    finishCommit: ({ body, signal }) => unwrap(raw.POST('/v1/executions/finish', { body, signal })),
    skipCommit: ({ body, signal }) => unwrap(raw.POST('/v1/executions/skip', { body, signal })),
    getRepoHeadline: ({ signal, ...query }) =>
      unwrap(raw.GET('/v1/repos/headline', { params: { query }, signal })),
    getCiTrust: ({ signal, ...query }) =>
      unwrap(raw.GET('/v1/repos/ci-trust', { params: { query }, signal })),
    getRepoSettings: ({ signal, ...query }) =>
      unwrap(raw.GET('/v1/repos/settings', { params: { query }, signal })),
    setRepoSettings: ({ body, signal }) =>
      unwrap(raw.PATCH('/v1/repos/settings', { body, signal })),
    createOrganisation: ({ body, signal }) =>
      unwrap(raw.POST('/v1/organisations', { body, signal })),
    listRepositories: ({ signal, ...query }) =>
      unwrap(raw.GET('/v1/repos', { params: { query }, signal })),
    getCurrentSession: (o = {}) => unwrap(raw.GET('/v1/session', { signal: o.signal })),
    switchOrganisation: ({ body, signal }) =>
      unwrap(raw.POST('/v1/session/organisation', { body, signal })),
    listMembers: (o = {}) => unwrap(raw.GET('/v1/members', { signal: o.signal })),
    changeMemberRole: ({ user_id, body, signal }) =>
      unwrap(raw.PATCH('/v1/members/{user_id}', { params: { path: { user_id } }, body, signal })),
    removeMember: ({ user_id, signal }) =>
      unwrap(raw.DELETE('/v1/members/{user_id}', { params: { path: { user_id } }, signal })),
    getGithubLink: (o = {}) =>
      unwrap(raw.GET('/v1/organisation/github-link', { signal: o.signal })),
    linkGithubOrganisation: ({ body, signal }) =>
      unwrap(raw.POST('/v1/organisation/github-link', { body, signal })),
    unlinkGithubOrganisation: (o = {}) =>
      unwrap(raw.DELETE('/v1/organisation/github-link', { signal: o.signal })),
    getOrganisationLink: (o = {}) =>
      unwrap(raw.GET('/v1/organisation/code-host-link', { signal: o.signal })),
    linkOrganisation: ({ body, signal }) =>
      unwrap(raw.POST('/v1/organisation/code-host-link', { body, signal })),
    unlinkOrganisation: (o = {}) =>
      unwrap(raw.DELETE('/v1/organisation/code-host-link', { signal: o.signal })),
    getOrganisationSettings: (o = {}) =>
      unwrap(raw.GET('/v1/organisation/settings', { signal: o.signal })),
    setOrganisationSettings: ({ body, signal }) =>
      unwrap(raw.PATCH('/v1/organisation/settings', { body, signal })),
    getRepositoryLink: ({ signal, ...query }) =>
      unwrap(raw.GET('/v1/repos/github-link', { params: { query }, signal })),
    linkRepository: ({ signal, body, ...query }) =>
      unwrap(raw.POST('/v1/repos/github-link', { params: { query }, body, signal })),
    unlinkRepository: ({ signal, ...query }) =>
      unwrap(raw.DELETE('/v1/repos/github-link', { params: { query }, signal })),
    getCodeHostLink: ({ signal, ...query }) =>
      unwrap(raw.GET('/v1/repos/code-host-link', { params: { query }, signal })),
    linkCodeHost: ({ signal, body, ...query }) =>
      unwrap(raw.POST('/v1/repos/code-host-link', { params: { query }, body, signal })),
    unlinkCodeHost: ({ signal, ...query }) =>
      unwrap(raw.DELETE('/v1/repos/code-host-link', { params: { query }, signal })),
    listInvites: (o = {}) => unwrap(raw.GET('/v1/invites', { signal: o.signal })),
    // openapi-fetch drops properties typed only `null` from the answer's type.
    createInvite: ({ body, signal } = {}) =>
      unwrap(raw.POST('/v1/invites', { body: body ?? {}, signal })) as Promise<CreatedInvite>,
    revokeInvite: ({ id, signal }) =>
      unwrap(raw.DELETE('/v1/invites/{id}', { params: { path: { id } }, signal })),
    acceptInvite: ({ body, signal }) => unwrap(raw.POST('/v1/invites/accept', { body, signal })),
    createSession: ({ body, signal }) => unwrap(raw.POST('/v1/sessions/create', { body, signal })),
    deleteSession: ({ session_id, signal }) =>
      unwrap(raw.DELETE('/v1/sessions/{session_id}', { params: { path: { session_id } }, signal })),
    listTokens: (o = {}) => unwrap(raw.GET('/v1/tokens', { signal: o.signal })),
    createToken: ({ body, signal }) => unwrap(raw.POST('/v1/tokens', { body, signal })),
    getToken: ({ id, signal }) =>
      unwrap(raw.GET('/v1/tokens/{id}', { params: { path: { id } }, signal })),
    updateToken: ({ id, body, signal }) =>
      unwrap(raw.PATCH('/v1/tokens/{id}', { params: { path: { id } }, body, signal })),
    revokeToken: ({ id, signal }) =>
      unwrap(raw.DELETE('/v1/tokens/{id}', { params: { path: { id } }, signal })),
    rotateToken: ({ id, body, signal }) =>
      unwrap(
        raw.POST('/v1/tokens/{id}/rotate', {
          params: { path: { id } },
          ...(body ? { body } : {}),
          signal,
        }),
      ),
    getBadge: ({ org, repo, signal, ...query }) =>
      unwrap(
        raw.GET('/v1/badge/{org}/{repo}', {
          params: { path: { org, repo }, query },
          parseAs: 'text',
          signal,
        }),
      ) as Promise<string>,
  };
}

/** Builds the error of an answer from its parsed body: any non-2xx one, or a 2xx one that is not JSON. */
function apiError(response: Response, body: unknown, now: number): CovgateApiError {
  const fromApi =
    typeof body === 'object' &&
    body !== null &&
    typeof (body as { error?: unknown }).error === 'string';
  const record = attemptRecordOf(response);
  return new CovgateApiError({
    status: response.status,
    error: fromApi ? (body as { error: string }).error : `HTTP ${response.status}`,
    requestId: response.headers.get('X-Request-ID'),
    retryAfterSeconds: parseRetryAfterSeconds(response.headers.get('Retry-After'), now),
    fromApi,
    contentType: response.headers.get('Content-Type')?.split(';')[0]?.trim().toLowerCase() || null,
    ...(record ?? {}),
  });
}

/** A UUID v4; `crypto.randomUUID` is missing in browsers outside secure contexts, so fall back to `getRandomValues`. */
function randomUUID(): string {
  if (typeof globalThis.crypto?.randomUUID === 'function') return globalThis.crypto.randomUUID();
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
