import { startFakeOidcIssuer } from '@covgate/test-support/fake-oidc-issuer';
import {
  buildOrganisation,
  createCheapTokenHasher,
  createTestApi,
  issueTestToken,
  type TestApiOptions,
} from '@covgate/testing';
import {
  providerA,
  providerB,
  signRawBodyPayload,
  signTimestampedPayload,
} from '@covgate/webhook-signature';
import type { CovgateApi } from '../../../src/http/api-types.js';
import { DEFAULT_INGEST_BODY_BYTES } from '../../../src/http/ingest-body-limit.js';
import { MAX_BODY_BYTES } from '../../../src/http/request-body.js';
import { Router } from '../../../src/http/router.js';
import { coreRoutes } from '../../../src/http/routes/route-table.js';
import {
  type CodeHost,
  CodeHostError,
  type CodeHostFailure,
} from '../../../src/oauth/code-host.js';
import { issueSignInLink } from '../../../src/sessions/sign-in-link.js';
import { createMemoryStore } from '../../../src/storage/memory-store.js';
import type { Organisation, Plan, Store } from '../../../src/storage/store.js';
import { createManualClock, type ManualClock } from '../../../src/time/timestamp.js';
import { resolveWebhookOptions } from '../../../src/webhooks/webhook-options.js';
import type { Exchange } from './openapi-document.js';

const ORIGIN = 'http://localhost';
const DASHBOARD_ORIGIN = 'https://dashboard.example.com';
const SERVICE_TOKEN = 'openapi-service-token-0123456789abcdef0123456789';
const SESSION_SECRET = 'openapi-session-secret-0123456789abcdef0123';
const PROVIDER_A_SECRET = 'whsec_openapi_provider_a';
const PROVIDER_B_SECRET = 'openapi_provider_b';
const hasher = createCheapTokenHasher();
const TOO_LARGE = 'x'.repeat(MAX_BODY_BYTES + 1);
/** Over the ingest's default wire limit. */
const TOO_LARGE_RUN = 'x'.repeat(DEFAULT_INGEST_BODY_BYTES + 1);
const WELL_FORMED_API_TOKEN = `cvg_${'a'.repeat(40)}`;
const WELL_FORMED_SESSION_TOKEN = `cvgs_${'a'.repeat(64)}`;
const FOREIGN_TOKEN_ID = '0123456789abcdef0123456789abcdef';

/** Codes the fake code host fails on, and how. */
const FAILING_CODES: Record<string, CodeHostFailure> = {
  refused: 'invalid-code',
  failed: 'failed',
  unreachable: 'unavailable',
  slow: 'timeout',
};
/** A code whose account the embedder's `resolveIdentity` hook cannot resolve. */
const UNRESOLVABLE = 'unresolvable';

/** A code host in memory: the authorize URL carries the state, codes are scripted. */
const fakeCodeHost: CodeHost = {
  authorizationUrl: ({ state }) =>
    new URL(`https://code-host.test/login/oauth/authorize?state=${encodeURIComponent(state)}`),
  async exchangeCode({ code }) {
    const failure = FAILING_CODES[code];
    if (failure) throw new CodeHostError(failure, `scripted ${failure}`);
    return { id: code === UNRESOLVABLE ? UNRESOLVABLE : '4242', login: 'octo-cat' };
  },
};

/** A code host whose own code fails: an embedder's bug. */
const brokenCodeHost: CodeHost = {
  authorizationUrl: () => {
    throw new Error('misconfigured code host');
  },
  exchangeCode: async () => ({ id: '1', login: 'nobody' }),
};

/** An API of the scenario on `store` and `clock`, with the scenario's secrets. */
function scenarioApi(store: Store, clock: ManualClock, options: TestApiOptions = {}): CovgateApi {
  return createTestApi({
    store,
    clock,
    sessionSecret: SESSION_SECRET,
    serviceToken: SERVICE_TOKEN,
    tokenHasher: hasher,
    ...options,
  }).api;
}

function jsonInit(
  method: string,
  body: unknown,
  headers: Record<string, string> = {},
): RequestInit {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return bodyInit(method, 'application/json', text, headers);
}

/** A request whose body is `body` labelled as `contentType`. */
function bodyInit(
  method: string,
  contentType: string,
  body: string,
  headers: Record<string, string> = {},
): RequestInit {
  return { method, headers: { ...headers, 'content-type': contentType }, body };
}

function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

function parseOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function bodyOf<T>(exchange: Exchange): T {
  return JSON.parse(exchange.text) as T;
}

const routeLabels = new Router(
  coreRoutes({ webhooks: resolveWebhookOptions() }).map((route) => ({
    ...route,
    handler: `${route.method} ${route.pattern}`,
  })),
);

/**
 * Two APIs on memory stores, called with `api.handle` (no socket), and every exchange,
 * labelled with the operation it exercises.
 */
export class Scenario {
  readonly exchanges: Exchange[] = [];
  /** Requests whose label is not the operation the router picks for them. */
  readonly mislabelled: string[] = [];
  readonly clock = createManualClock(new Date('2026-03-01T12:00:00Z'));
  readonly store = createMemoryStore();
  readonly api: CovgateApi;
  /** An API over a closed store, without OAuth and without webhook secrets: 500s and 501s. */
  readonly brokenApi: CovgateApi;
  /**
   * An API that runs one argon2 verification at once with no queue, whose verifications
   * wait for {@link Scenario.holdVerifications}: every other one is shed with `503`.
   */
  readonly overloadedApi: CovgateApi;
  /** While set, verifications of {@link Scenario.overloadedApi} wait for it. */
  holdVerifications: Promise<void> | null = null;
  /** Resolved when a held verification has started. */
  verificationStarted: (() => void) | null = null;
  private readonly brokenStore = createMemoryStore();
  /** The organisation the OAuth `resolveIdentity` hook signs everyone into. */
  oauthOrgId = '';

  constructor() {
    this.api = scenarioApi(this.store, this.clock, {
      // One request a minute for enterprise tokens, so that 429 is quick to reach.
      rateLimit: { limits: { enterprise: 1 } },
      oauth: {
        codeHosts: { github: fakeCodeHost, broken: brokenCodeHost },
        dashboardUrl: `${DASHBOARD_ORIGIN}/welcome`,
        resolveIdentity: async ({ user }) => {
          if (user.id === UNRESOLVABLE) throw new Error('no such account');
          return { userId: 'usr_oauth', orgId: this.oauthOrgId };
        },
      },
      webhooks: {
        providers: [
          { ...providerA, secret: PROVIDER_A_SECRET },
          { ...providerB, secret: PROVIDER_B_SECRET },
        ],
        onEvent: async (event) => {
          if (event.type === 'explode') throw new Error('processing failed');
        },
      },
    });
    this.brokenApi = scenarioApi(this.brokenStore, this.clock);
    this.overloadedApi = scenarioApi(this.store, this.clock, {
      verificationConcurrency: { maxConcurrent: 1, maxQueued: 0 },
      tokenHasher: {
        hash: (token) => hasher.hash(token),
        verify: async (hash, token) => {
          this.verificationStarted?.();
          if (this.holdVerifications) await this.holdVerifications;
          return hasher.verify(hash, token);
        },
      },
    });
  }

  /** Closes the broken API's store, so that every storage call there fails. */
  async breakStorage(): Promise<void> {
    await this.brokenStore.close();
  }

  async send(
    label: string,
    path: string,
    init: RequestInit = {},
    api = this.api,
  ): Promise<Exchange> {
    const method = init.method ?? 'GET';
    if (label.includes(' ')) this.checkLabel(label, method, path);
    const response = await api.handle(new Request(`${ORIGIN}${path}`, init), {
      remoteAddress: '198.51.100.7',
    });
    const sent = typeof init.body === 'string' && init.body.length < 10_000 ? init.body : undefined;
    const exchange: Exchange = {
      label,
      request: `${method} ${path.slice(0, 120)}`,
      requestBody: sent === undefined ? undefined : parseOrText(sent),
      status: response.status,
      headers: response.headers,
      text: await response.text(),
    };
    this.exchanges.push(exchange);
    return exchange;
  }

  private checkLabel(label: string, method: string, path: string): void {
    try {
      const match = routeLabels.match(method, new URL(path, ORIGIN).pathname);
      if (match.kind !== 'found' || match.handler !== label) {
        this.mislabelled.push(`${method} ${path} is not ${label}`);
      }
    } catch {
      // A path parameter that is not valid percent-encoding: the router itself answers 400.
    }
  }

  async organisation(plan: Plan = 'free'): Promise<Organisation> {
    const org = buildOrganisation({ plan, createdAt: this.clock.now() });
    await this.store.createOrganisation(org);
    return org;
  }

  /** An API token written straight into the store, for scopes the API cannot grant. */
  async insertToken(org: Organisation, scopes: string[]): Promise<string> {
    const { token } = await issueTestToken(this.store, {
      orgId: org.id,
      hasher,
      name: 'inserted',
      scopes,
      createdAt: this.clock.now(),
    });
    return token;
  }
}

interface CreatedSession {
  token: string;
  session_id: string;
}

/** What the sections of the scenario share. */
interface Fixtures {
  org: Organisation;
  other: Organisation;
  /** An enterprise organisation: its tokens get one request a minute. */
  limited: Organisation;
  /** A token of `org` without the `execute` scope. */
  noExecute: string;
  limitedToken: string;
  session: CreatedSession;
  otherSession: CreatedSession;
  asSession: Record<string, string>;
  cookie: Record<string, string>;
  /** The raw value of an `execute` token of `org` made through the API. */
  apiToken: string;
  asToken: Record<string, string>;
  tokenPath: string;
}

const OPS = {
  validate: 'POST /v1/auth/validate',
  list: 'GET /v1/executions',
  series: 'GET /v1/executions/series',
  ingest: 'POST /v1/executions',
  createSession: 'POST /v1/sessions/create',
  createOrganisation: 'POST /v1/organisations',
  currentSession: 'GET /v1/session',
  switchOrganisation: 'POST /v1/session/organisation',
  listMembers: 'GET /v1/members',
  changeMember: 'PATCH /v1/members/{user_id}',
  removeMember: 'DELETE /v1/members/{user_id}',
  listInvites: 'GET /v1/invites',
  createInvite: 'POST /v1/invites',
  acceptInvite: 'POST /v1/invites/accept',
  revokeInvite: 'DELETE /v1/invites/{id}',
  getGithubLink: 'GET /v1/organisation/github-link',
  linkGithub: 'POST /v1/organisation/github-link',
  unlinkGithub: 'DELETE /v1/organisation/github-link',
  getOrganisationLink: 'GET /v1/organisation/code-host-link',
  linkOrganisation: 'POST /v1/organisation/code-host-link',
  unlinkOrganisation: 'DELETE /v1/organisation/code-host-link',
  getOrganisationSettings: 'GET /v1/organisation/settings',
  patchOrganisationSettings: 'PATCH /v1/organisation/settings',
  getRepoLink: 'GET /v1/repos/github-link',
  linkRepo: 'POST /v1/repos/github-link',
  unlinkRepo: 'DELETE /v1/repos/github-link',
  getCodeHostLink: 'GET /v1/repos/code-host-link',
  linkCodeHost: 'POST /v1/repos/code-host-link',
  unlinkCodeHost: 'DELETE /v1/repos/code-host-link',
  openInvite: 'GET /auth/invite',
  joinInvite: 'POST /auth/invite',
  repos: 'GET /v1/repos',
  getExecution: 'GET /v1/executions/{id}',
  getExecutionFile: 'GET /v1/executions/{id}/files/{path}',
  getExecutionFileSource: 'GET /v1/executions/{id}/files/{path}/source',
  finish: 'POST /v1/executions/finish',
  skip: 'POST /v1/executions/skip',
  getRepoSettings: 'GET /v1/repos/settings',
  getRepoHeadline: 'GET /v1/repos/headline',
  ciTrust: 'GET /v1/repos/ci-trust',
  patchRepoSettings: 'PATCH /v1/repos/settings',
  logout: 'DELETE /v1/sessions/{session_id}',
  listTokens: 'GET /v1/tokens',
  createToken: 'POST /v1/tokens',
  getToken: 'GET /v1/tokens/{id}',
  patchToken: 'PATCH /v1/tokens/{id}',
  revokeToken: 'DELETE /v1/tokens/{id}',
  rotateToken: 'POST /v1/tokens/{id}/rotate',
  badge: 'GET /v1/badge/{org}/{repo}',
  webhook: 'POST /v1/webhooks/{provider}',
  openLink: 'GET /auth/link',
  useLink: 'POST /auth/link',
  startLogin: 'GET /auth/{code_host}',
  completeLogin: 'GET /auth/{code_host}/callback',
} as const;

/** A session made through `POST /v1/sessions/create` with the service token. */
async function createSession(s: Scenario, body: object): Promise<CreatedSession> {
  const init = jsonInit('POST', body, bearer(SERVICE_TOKEN));
  return bodyOf<CreatedSession>(await s.send(OPS.createSession, '/v1/sessions/create', init));
}

/** The bearer header of a new session of `userId` in `orgId`, as `role` when given. */
async function sessionBearer(
  s: Scenario,
  userId: string,
  orgId: string,
  role?: string,
): Promise<Record<string, string>> {
  const session = await createSession(s, {
    user_id: userId,
    org_id: orgId,
    ...(role ? { role } : {}),
  });
  return bearer(session.token);
}

const run = (coverage: number, branch = 'main') => ({ repo: 'web', branch, coverage });

/**
 * One run through every route that produces every documented status of each. Sections
 * depend on the ones before them (sessions, then tokens...); rate limiting comes last.
 */
export async function runScenario(s: Scenario): Promise<void> {
  await s.breakStorage();
  await crossCutting(s);
  await organisations(s);
  const fixtures = await createCredentials(s);
  await readTokens(s, fixtures);
  await executions(s, fixtures);
  await patchCoverage(s, fixtures);
  await dashboardReads(s, fixtures);
  await validation(s, fixtures);
  await changeTokens(s, fixtures);
  await badges(s, fixtures);
  await webhooks(s);
  await oauthLogin(s, fixtures);
  await signInLinks(s, fixtures);
  await members(s, fixtures);
  await invites(s, fixtures);
  await githubLinks(s, fixtures);
  await organisationLinks(s, fixtures);
  await organisationSettings(s, fixtures);
  await repositoryLinks(s, fixtures);
  await ciTrust(s, fixtures);
  await logout(s, fixtures);
  await rateLimits(s, fixtures);
  await overload(s, fixtures);
}

async function crossCutting(s: Scenario): Promise<void> {
  await s.send('GET /health', '/health');
  await s.send('GET /health/ready', '/health/ready');
  await s.send('GET /health/ready', '/health/ready', {}, s.brokenApi);
  await s.send('GET /health/metrics', '/health/metrics');
  await s.send('GET /health/metrics', '/health/metrics', {}, s.brokenApi);
  await s.send('NotFound', '/v2/nothing-here');
  await s.send('MethodNotAllowed', '/health', { method: 'DELETE' });
  await s.send('MethodNotAllowed', '/v1/tokens', { method: 'PUT' });
  await s.send('Preflight', '/v1/tokens', {
    method: 'OPTIONS',
    headers: { origin: DASHBOARD_ORIGIN, 'access-control-request-method': 'POST' },
  });
  await s.send('Preflight', '/not/a/route', { method: 'OPTIONS' });
}

/** `POST /v1/organisations` with every answer. */
async function organisations(s: Scenario): Promise<void> {
  const create = (body: unknown, headers = bearer(SERVICE_TOKEN), api = s.api) =>
    s.send(OPS.createOrganisation, '/v1/organisations', jsonInit('POST', body, headers), api);
  await create({ slug: 'scenario-org', name: 'Scenario', plan: 'team', extra: 1 });
  await create({ slug: 'scenario-org' });
  await create({ slug: 'Bad' });
  await create({ slug: 'github-42' });
  await create('[1]');
  await create({ slug: 'x' }, {});
  await create(TOO_LARGE);
  await s.send(
    OPS.createOrganisation,
    '/v1/organisations',
    bodyInit('POST', 'text/plain', 'slug=x', bearer(SERVICE_TOKEN)),
  );
  await create({ slug: 'broken-store' }, bearer(SERVICE_TOKEN), s.brokenApi);
}

/** Sessions through `POST /v1/sessions/create` and a token through `POST /v1/tokens`, with their errors. */
async function createCredentials(s: Scenario): Promise<Fixtures> {
  const org = await s.organisation();
  const other = await s.organisation();
  const limited = await s.organisation('enterprise');
  s.oauthOrgId = org.id;
  const service = bearer(SERVICE_TOKEN);
  const create = (body: unknown, headers = service, api = s.api) =>
    s.send(OPS.createSession, '/v1/sessions/create', jsonInit('POST', body, headers), api);

  const session = bodyOf<CreatedSession>(
    await create({ user_id: 'usr_1', org_id: org.id, ttl: 9 }),
  );
  const otherSession = bodyOf<CreatedSession>(await create({ user_id: 'usr_2', org_id: other.id }));
  await create({ user_id: '', org_id: org.id });
  await create({ user_id: 'usr_rootless', org_id: org.id, role: 'root' });
  await create({ user_id: 'u', org_id: 'org_nope' });
  await create('[1]');
  await create({ user_id: 'u', org_id: org.id }, {});
  await create(TOO_LARGE);
  await s.send(
    OPS.createSession,
    '/v1/sessions/create',
    bodyInit('POST', 'text/plain', 'user_id=u', service),
  );
  await create({ user_id: 'u', org_id: org.id }, service, s.brokenApi);

  const asSession = bearer(session.token);
  const cookie = { cookie: `covgate_session=${session.token}` };
  const createToken = (body: unknown, headers = asSession, api = s.api) =>
    s.send(OPS.createToken, '/v1/tokens', jsonInit('POST', body, headers), api);
  const created = bodyOf<{ id: string; secret: string }>(
    await createToken({ name: 'ci', agent_type: 'github-actions' }),
  );
  const asToken = bearer(created.secret);
  await createToken({ name: ' ' });
  await createToken({ name: 'x', scopes: ['admin'] });
  await createToken({ name: 'x', agent_type: 'a b' });
  await createToken('{"name":');
  await createToken({ name: 'x' }, {});
  await createToken({ name: 'x' }, asToken);
  await createToken({ name: 'x' }, cookie);
  await createToken(TOO_LARGE);
  await s.send(OPS.createToken, '/v1/tokens', bodyInit('POST', 'text/plain', 'x', asSession));
  await createToken({ name: 'x' }, bearer(WELL_FORMED_SESSION_TOKEN), s.brokenApi);

  return {
    org,
    other,
    limited,
    noExecute: await s.insertToken(org, []),
    limitedToken: await s.insertToken(limited, ['execute']),
    session,
    otherSession,
    asSession,
    cookie,
    apiToken: created.secret,
    asToken,
    tokenPath: `/v1/tokens/${created.id}`,
  };
}

async function readTokens(s: Scenario, f: Fixtures): Promise<void> {
  const broken = bearer(WELL_FORMED_SESSION_TOKEN);
  await s.send(OPS.listTokens, '/v1/tokens', { headers: f.asSession });
  await s.send(OPS.listTokens, '/v1/tokens', { headers: f.cookie });
  await s.send(OPS.listTokens, '/v1/tokens');
  await s.send(OPS.listTokens, '/v1/tokens', { headers: f.asToken });
  await s.send(OPS.listTokens, '/v1/tokens', { headers: broken }, s.brokenApi);

  await s.send(OPS.getToken, f.tokenPath, { headers: f.asSession });
  await s.send(OPS.getToken, '/v1/tokens/%E0%A4%A', { headers: f.asSession });
  await s.send(OPS.getToken, f.tokenPath);
  await s.send(OPS.getToken, f.tokenPath, { headers: f.asToken });
  await s.send(OPS.getToken, f.tokenPath, { headers: bearer(f.otherSession.token) });
  await s.send(OPS.getToken, '/v1/tokens/not-an-id', { headers: f.asSession });
  await s.send(OPS.getToken, `/v1/tokens/${FOREIGN_TOKEN_ID}`, { headers: broken }, s.brokenApi);
}

/** Ingest and list; a session acts for its organisation without a scope. */
async function executions(s: Scenario, f: Fixtures): Promise<void> {
  const ingest = (body: unknown, headers: Record<string, string>, api = s.api) =>
    s.send(OPS.ingest, '/v1/executions', jsonInit('POST', body, headers), api);
  await ingest({ ...run(84.13), commit: 'ABCDEF0123456789abcdef0123456789ABCDEF01' }, f.asToken);
  await ingest({ ...run(84.2), commit: 'xyz' }, f.asToken);
  await ingest({ ...run(83.9, 'feature/login'), org: f.org.slug }, f.asToken);
  await ingest(run(81, 'feature/drop'), f.asSession);
  await ingest(
    { ...run(84.6), base_branch: 'main', warn_threshold: 0.25, fail_threshold: 2 },
    { ...f.cookie, origin: DASHBOARD_ORIGIN },
  );
  await ingest(run(101), f.asToken);
  await ingest({ ...run(80), warn_threshold: 2, fail_threshold: 1 }, f.asToken);
  await ingest('[]', f.asToken);
  await ingest(run(80), {});
  await ingest(run(80), bearer(f.noExecute));
  await ingest({ ...run(80), org: f.other.slug }, f.asToken);
  await ingest(run(80), f.cookie);
  await ingest(TOO_LARGE_RUN, f.asToken);
  await s.send(
    OPS.ingest,
    '/v1/executions',
    bodyInit('POST', 'text/csv', 'web,main,80', f.asToken),
  );
  await ingest(run(80), bearer(WELL_FORMED_API_TOKEN), s.brokenApi);
  const keyed = { ...f.asToken, 'idempotency-key': 'scenario-run-1' };
  await ingest(run(82.5, 'feature/keyed'), keyed);
  await ingest(run(82.5, 'feature/keyed'), keyed);
  await ingest(run(82.6, 'feature/keyed'), keyed);
  await ingest(run(82.5, 'feature/keyed'), { ...f.asToken, 'idempotency-key': 'not a key' });

  const query = `org=${encodeURIComponent(f.org.slug)}&repo=web`;
  const list = (search: string, headers: Record<string, string> = {}, api = s.api) =>
    s.send(OPS.list, `/v1/executions?${search}`, { headers }, api);
  await list(query, f.asToken);
  await list(`${query}&limit=100`, f.cookie);
  const firstPage = bodyOf<{ next_cursor: string }>(
    await list(`${query}&limit=2&cursor=`, f.asSession),
  );
  await list(`${query}&limit=2&cursor=${firstPage.next_cursor}`, f.asSession);
  await list('repo=web', f.asToken);
  await list(`org=${f.org.slug}`, f.asToken);
  await list(`${query}&limit=0`, f.asToken);
  await list(`${query}&cursor=not-a-cursor`, f.asToken);
  await list(`${query}&branch=main&outcome=pass&component=&cursor=`, f.asSession);
  await list(`${query}&component=api`, f.asSession);
  await list(`${query}&branch=`, f.asSession);
  await list(`${query}&outcome=passed`, f.asSession);
  await list(`${query}&component=-api`, f.asSession);
  await list(query);
  await list(query, bearer('cvg_short'));
  await list(query, bearer(f.noExecute));
  await list(`org=${f.other.slug}&repo=web`, f.asToken);
  await list(query, bearer(WELL_FORMED_API_TOKEN), s.brokenApi);

  const series = (search: string, headers: Record<string, string> = {}, api = s.api) =>
    s.send(OPS.series, `/v1/executions/series?${search}`, { headers }, api);
  await series(query, f.cookie);
  await series(`${query}&limit=2`, f.asToken);
  await series(`org=${f.org.slug}&repo=unknown`, f.asSession);
  await series('repo=web', f.asSession);
  await series(`org=${f.org.slug}`, f.asToken);
  await series(`${query}&limit=1001`, f.asToken);
  await series(query);
  await series(query, bearer(f.noExecute));
  await series(`org=${f.other.slug}&repo=web`, f.cookie);
  await series(query, bearer(WELL_FORMED_API_TOKEN), s.brokenApi);
}

/** A pull request run with patch, files and component; one run by id; repository settings. */
async function patchCoverage(s: Scenario, f: Fixtures): Promise<void> {
  const ingest = (body: unknown, headers: Record<string, string>) =>
    s.send(OPS.ingest, '/v1/executions', jsonInit('POST', body, headers));
  await ingest({ ...run(90), component: 'api', commit: 'a'.repeat(40) }, f.asToken);
  const pr = bodyOf<{ id: string }>(
    await ingest(
      {
        ...run(89, 'feature/patch'),
        component: 'api',
        base_commit: 'a'.repeat(40),
        pull_request: 7,
        patch: { covered: 1, coverable: 4 },
        patch_target: 70,
        files: [
          {
            path: 'src/a.ts',
            covered: 1,
            coverable: 4,
            lines: { coverable: [1, 4], covered: [1, 3] },
            patch_lines: [1, 2],
          },
          { path: 'lib/', covered: 0, coverable: 2 },
        ],
      },
      f.asToken,
    ),
  );
  await ingest(
    { ...run(89), patch: { covered: 0, coverable: 0 }, base_commit: 'b'.repeat(40) },
    f.asToken,
  );
  await ingest({ ...run(89), patch: { covered: 2, coverable: 1 } }, f.asToken);
  await ingest(
    {
      ...run(89),
      files: [
        { path: 'a', covered: 0, coverable: 0 },
        { path: 'a', covered: 0, coverable: 0 },
      ],
    },
    f.asToken,
  );
  await ingest({ ...run(89), files: [{ path: '', covered: 0, coverable: 0 }] }, f.asToken);

  const detail = (id: string, headers: Record<string, string> = {}, api = s.api) =>
    s.send(OPS.getExecution, `/v1/executions/${id}`, { headers }, api);
  await detail(pr.id, f.asToken);
  await detail(pr.id, f.cookie);
  await detail(pr.id, bearer(f.otherSession.token));
  await detail('exe_unknown', f.asSession);
  await detail(pr.id);
  await detail(pr.id, bearer(f.noExecute));
  await detail(pr.id, bearer(WELL_FORMED_API_TOKEN), s.brokenApi);

  const fileLines = (id: string, path: string, headers: Record<string, string> = {}, api = s.api) =>
    s.send(
      OPS.getExecutionFile,
      `/v1/executions/${id}/files/${encodeURIComponent(path)}`,
      { headers },
      api,
    );
  await fileLines(pr.id, 'src/a.ts', f.asToken);
  await fileLines(pr.id, 'src/a.ts', f.cookie);
  await fileLines(pr.id, 'lib/', f.asToken);
  await fileLines('exe_unknown', 'src/a.ts', f.asSession);
  await fileLines(pr.id, 'src/a.ts');
  await fileLines(pr.id, 'src/a.ts', bearer(f.noExecute));
  await fileLines(pr.id, 'src/a.ts', bearer(WELL_FORMED_API_TOKEN), s.brokenApi);

  // The repository has no link here: the source answers why there is no text.
  const fileSource = (
    id: string,
    path: string,
    headers: Record<string, string> = {},
    api = s.api,
  ) =>
    s.send(
      OPS.getExecutionFileSource,
      `/v1/executions/${id}/files/${encodeURIComponent(path)}/source`,
      { headers },
      api,
    );
  await fileSource(pr.id, 'src/a.ts', f.asToken);
  await fileSource(pr.id, 'src/a.ts', f.cookie);
  await fileSource(pr.id, 'lib/', f.asToken);
  await fileSource('exe_unknown', 'src/a.ts', f.asSession);
  await fileSource(pr.id, 'src/a.ts');
  await fileSource(pr.id, 'src/a.ts', bearer(f.noExecute));
  await fileSource(pr.id, 'src/a.ts', bearer(WELL_FORMED_API_TOKEN), s.brokenApi);

  // A run whose detail retention deleted: its answer says when, its files answer 410. A token
  // of its own, so that the shared one's rate limit is left to the scenarios after this one.
  const prunedToken = bearer(await s.insertToken(f.org, ['execute']));
  const pruned = bodyOf<{ id: string }>(
    await ingest(
      { ...run(88), files: [{ path: 'src/a.ts', covered: 1, coverable: 2 }] },
      prunedToken,
    ),
  );
  await s.store.pruneRunDetail(f.org.id, [pruned.id], s.clock.now());
  await detail(pruned.id, prunedToken);
  await fileLines(pruned.id, 'src/a.ts', prunedToken);
  await fileSource(pruned.id, 'src/a.ts', prunedToken);

  const query = `org=${encodeURIComponent(f.org.slug)}&repo=web`;
  const read = (search: string, headers: Record<string, string> = {}, api = s.api) =>
    s.send(OPS.getRepoSettings, `/v1/repos/settings?${search}`, { headers }, api);
  const change = (body: unknown, headers: Record<string, string>, api = s.api) =>
    s.send(OPS.patchRepoSettings, '/v1/repos/settings', jsonInit('PATCH', body, headers), api);
  await read(query, f.asToken);
  await change({ repo: 'web', patch_target: 75.5 }, f.asToken);
  await change({ repo: 'web', patch_target: null, org: f.org.slug }, f.asSession);
  await change({ repo: 'web', patch_target: 75 }, { ...f.cookie, origin: DASHBOARD_ORIGIN });
  await read(query, f.cookie);
  await read(`repo=web`, f.asToken);
  await read(`org=${f.org.slug}`, f.asToken);
  await read(query);
  await read(query, bearer(f.noExecute));
  await read(`org=${f.other.slug}&repo=web`, f.asToken);
  await read(query, bearer(WELL_FORMED_API_TOKEN), s.brokenApi);
  await change({ repo: 'web', patch_target: 101 }, f.asToken);
  await change({ repo: 'web', web_url: 'https://github.com/acme/web' }, f.asSession);
  await change({ repo: 'web', web_url: 'ftp://github.com/acme/web' }, f.asSession);
  await change({ repo: 'web', web_url: null, patch_target: 80 }, f.asSession);
  await change({ repo: 'web' }, f.asToken);
  await change({ patch_target: 1 }, f.asToken);
  await change('[', f.asToken);
  await change({ repo: 'web', patch_target: 1 }, {});
  await change({ repo: 'web', patch_target: 1 }, bearer(f.noExecute));
  await change({ repo: 'web', patch_target: 1, org: f.other.slug }, f.asToken);
  await change({ repo: 'web', patch_target: 1 }, f.cookie);
  await change(TOO_LARGE, f.asToken);
  await s.send(
    OPS.patchRepoSettings,
    '/v1/repos/settings',
    bodyInit('PATCH', 'text/plain', 'web 80', f.asToken),
  );
  await change({ repo: 'web', patch_target: 1 }, bearer(WELL_FORMED_API_TOKEN), s.brokenApi);

  // Parts of one commit, and finishing it (as a session: the token's minute is spent).
  const partCommit = 'e'.repeat(40);
  const partFiles = [
    { path: 'src/a.ts', covered: 1, coverable: 2, lines: { coverable: [1, 2], covered: [1, 1] } },
  ];
  const part = (name: string, extra: Record<string, unknown> = {}) => ({
    ...run(50),
    commit: partCommit,
    part: name,
    files: partFiles,
    ...extra,
  });
  await ingest(part('unit', { expect_parts: ['e2e', 'unit'] }), f.asSession);
  await ingest(part('e2e', { branch: 'elsewhere' }), f.asSession);
  await ingest(
    part('e2e', { files: [{ path: 'src/a.ts', covered: 1, coverable: 2 }] }),
    f.asSession,
  );
  await ingest(part('e2e', { files: undefined }), f.asSession);
  await ingest(part('e2e', { commit: undefined }), f.asSession);
  await ingest(part('e2e', { expect_parts: 0 }), f.asSession);
  await ingest({ ...run(50), expect_parts: 2 }, f.asSession);
  await ingest(part('no spaces'), f.asSession);
  const finish = (body: unknown, headers: Record<string, string>, api = s.api) =>
    s.send(OPS.finish, '/v1/executions/finish', jsonInit('POST', body, headers), api);
  const finishing = { repo: 'web', commit: partCommit };
  await finish(finishing, f.asSession);
  await finish({ ...finishing, org: f.org.slug, component: null }, f.asToken);
  await finish({ ...finishing, commit: 'f'.repeat(40) }, f.asSession);
  await finish({ repo: 'web' }, f.asSession);
  await finish({ ...finishing, commit: 'xyz' }, f.asSession);
  await finish({ ...finishing, component: 'a b' }, f.asSession);
  await finish({ commit: partCommit }, f.asSession);
  await finish({ ...finishing, org: '' }, f.asSession);
  await finish('[', f.asSession);
  await finish(finishing, {});
  await finish(finishing, bearer(f.noExecute));
  await finish({ ...finishing, org: f.other.slug }, f.asSession);
  await finish(TOO_LARGE, f.asSession);
  await s.send(
    OPS.finish,
    '/v1/executions/finish',
    bodyInit('POST', 'text/plain', 'web', f.asSession),
  );
  await finish(finishing, bearer(WELL_FORMED_API_TOKEN), s.brokenApi);

  const skip = (body: unknown, headers: Record<string, string>, api = s.api) =>
    s.send(OPS.skip, '/v1/executions/skip', jsonInit('POST', body, headers), api);
  const skipping = { repo: 'web', branch: 'docs', commit: 'd'.repeat(40), reason: 'docs only' };
  await skip(skipping, f.asSession);
  await skip({ ...skipping, org: f.org.slug, component: 'api', pull_request: 3 }, f.asToken);
  await skip({ ...skipping, base_branch: 'never-ran' }, f.asSession);
  await skip({ ...skipping, reason: '' }, f.asSession);
  await skip({ ...skipping, commit: 'xyz' }, f.asSession);
  await skip({ ...skipping, branch: undefined }, f.asSession);
  await skip({ ...skipping, org: '' }, f.asSession);
  await skip('[', f.asSession);
  await skip(skipping, {});
  await skip(skipping, bearer(f.noExecute));
  await skip({ ...skipping, org: f.other.slug }, f.asSession);
  await skip(TOO_LARGE, f.asSession);
  await s.send(OPS.skip, '/v1/executions/skip', bodyInit('POST', 'text/plain', 'web', f.asSession));
  await skip(skipping, bearer(WELL_FORMED_API_TOKEN), s.brokenApi);

  const headline = (search: string, headers: Record<string, string> = {}, api = s.api) =>
    s.send(OPS.getRepoHeadline, `/v1/repos/headline?${search}`, { headers }, api);
  await headline(query, f.asToken);
  await headline(`${query}&component=api`, f.cookie);
  await headline(`org=${f.org.slug}&repo=never-ran`, f.asSession);
  await headline('repo=web', f.asSession);
  await headline(`org=${f.org.slug}`, f.asSession);
  await headline(`${query}&component=a%20b`, f.asSession);
  await headline(query);
  await headline(query, bearer(f.noExecute));
  await headline(`org=${f.other.slug}&repo=web`, f.asSession);
  await headline(query, bearer(WELL_FORMED_API_TOKEN), s.brokenApi);
}

/**
 * `GET /v1/repos/ci-trust` asked with a GitHub Actions ID token of a fake issuer on loopback,
 * by an API that takes its tokens, for a repository that trusts the job and one that does not.
 */
async function ciTrust(s: Scenario, f: Fixtures): Promise<void> {
  const issuer = await startFakeOidcIssuer();
  try {
    const api = scenarioApi(s.store, s.clock, {
      allowPrivateCodeHosts: ['127.0.0.1'],
      ciTokens: { audience: ORIGIN, github: issuer.issuer },
    });
    const trust = { repo: 'keyless', ci_trust: [{ provider: 'github', repository: 'acme/web' }] };
    await s.send(
      OPS.patchRepoSettings,
      '/v1/repos/settings',
      jsonInit('PATCH', trust, f.asSession),
    );
    const now = Math.floor(s.clock.now().getTime() / 1000);
    const idToken = await issuer.sign({
      aud: ORIGIN,
      repository: 'acme/web',
      ref: 'refs/heads/main',
      iat: now,
      nbf: now,
      exp: now + 300,
    });
    const ask = (search: string, headers: Record<string, string>, on = api) =>
      s.send(OPS.ciTrust, `/v1/repos/ci-trust?${search}`, { headers }, on);
    await ask(`org=${f.org.slug}&repo=keyless`, bearer(idToken));
    await ask('repo=keyless', bearer(idToken));
    await ask(`org=${f.org.slug}&repo=web`, bearer(idToken));
    await ask(`org=${f.org.slug}&repo=keyless`, {});
    await ask(`org=${f.org.slug}&repo=keyless`, f.asToken);
    await ask(`org=${f.org.slug}&repo=keyless`, bearer(WELL_FORMED_API_TOKEN), s.brokenApi);
  } finally {
    await issuer.close();
  }
}

/** The dashboard's reads: the presenting session and the organisation's repositories. */
async function dashboardReads(s: Scenario, f: Fixtures): Promise<void> {
  const current = (headers: Record<string, string>, api = s.api) =>
    s.send(OPS.currentSession, '/v1/session', { headers }, api);
  await current(f.asSession);
  await current(f.cookie);
  await current({});
  await current(f.asToken);
  await current(bearer(WELL_FORMED_SESSION_TOKEN), s.brokenApi);

  const repos = (search: string, headers: Record<string, string> = {}, api = s.api) =>
    s.send(OPS.repos, `/v1/repos${search}`, { headers }, api);
  const query = `?org=${encodeURIComponent(f.org.slug)}`;
  await repos(query, f.asToken);
  await repos(query, f.cookie);
  await repos(`?org=${encodeURIComponent(f.other.slug)}`, bearer(f.otherSession.token));
  await repos('', f.asSession);
  await repos(query);
  await repos(query, bearer(f.noExecute));
  await repos(`?org=${encodeURIComponent(f.other.slug)}`, f.asSession);
  await repos(query, bearer(WELL_FORMED_API_TOKEN), s.brokenApi);
}

async function validation(s: Scenario, f: Fixtures): Promise<void> {
  const validate = (init: RequestInit, api = s.api) =>
    s.send(OPS.validate, '/v1/auth/validate', { method: 'POST', ...init }, api);
  await validate({ headers: f.asToken });
  await validate(jsonInit('POST', { token: f.apiToken }));
  await validate(jsonInit('POST', { token: 42 }));
  await validate(jsonInit('POST', { token: f.apiToken, extra: true }));
  await validate({});
  await validate({ headers: f.asSession });
  await validate({ headers: { authorization: `Basic ${f.apiToken}` } });
  await validate(jsonInit('POST', TOO_LARGE));
  await validate(bodyInit('POST', 'text/plain', f.apiToken));
  await validate({ headers: bearer(WELL_FORMED_API_TOKEN) }, s.brokenApi);
}

/** Update, rotate and revoke. */
async function changeTokens(s: Scenario, f: Fixtures): Promise<void> {
  const path = f.tokenPath;
  const brokenSession = bearer(WELL_FORMED_SESSION_TOKEN);
  const patch = (target: string, body: unknown, headers = f.asSession, api = s.api) =>
    s.send(OPS.patchToken, target, jsonInit('PATCH', body, headers), api);
  await patch(path, { name: 'ci main', scopes: ['execute', 'execute'] });
  await patch(path, {});
  await patch(path, { scopes: [] });
  await patch('/v1/tokens/%ZZ', { name: 'x' });
  await patch(path, { name: 'x' }, {});
  await patch(path, { name: 'x' }, f.asToken);
  await patch(path, { name: 'x' }, bearer(f.otherSession.token));
  await patch(path, TOO_LARGE);
  await s.send(OPS.patchToken, path, bodyInit('PATCH', 'application/xml', '<name/>', f.asSession));
  await patch(path, { name: 'x' }, brokenSession, s.brokenApi);

  const rotate = (target: string, init: RequestInit, api = s.api) =>
    s.send(OPS.rotateToken, `${target}/rotate`, { method: 'POST', ...init }, api);
  const rotated = bodyOf<{ id: string }>(await rotate(path, { headers: f.asSession }));
  const newPath = `/v1/tokens/${rotated.id}`;
  await rotate(newPath, jsonInit('POST', { grace_period_seconds: 0 }, f.asSession));
  await rotate(path, jsonInit('POST', {}, f.asSession));
  await rotate(newPath, jsonInit('POST', { grace_period_seconds: -1 }, f.asSession));
  await rotate('/v1/tokens/%ZZ', { headers: f.asSession });
  await rotate(path, {});
  await rotate(path, { headers: f.asToken });
  await rotate(`/v1/tokens/${FOREIGN_TOKEN_ID}`, { headers: f.asSession });
  await rotate(path, jsonInit('POST', TOO_LARGE, f.asSession));
  await rotate(path, bodyInit('POST', 'text/plain', '60', f.asSession));
  await rotate(path, { headers: brokenSession }, s.brokenApi);

  const revoke = (target: string, headers: Record<string, string>, api = s.api) =>
    s.send(OPS.revokeToken, target, { method: 'DELETE', headers }, api);
  await revoke(path, f.asSession);
  await revoke(path, { ...f.cookie, origin: DASHBOARD_ORIGIN });
  await revoke('/v1/tokens/%ZZ', f.asSession);
  await revoke(path, {});
  await revoke(path, f.cookie);
  await revoke(path, bearer(f.otherSession.token));
  await revoke(path, brokenSession, s.brokenApi);
}

async function badges(s: Scenario, f: Fixtures): Promise<void> {
  const badge = (path: string, headers: Record<string, string> = {}, api = s.api) =>
    s.send(OPS.badge, path, { headers }, api);
  const web = `/v1/badge/${f.org.slug}/web`;
  const svg = await badge(web);
  const etag = svg.headers.get('etag') ?? '';
  await badge(web, { 'if-none-match': etag });
  await badge(web, { 'if-none-match': `"stale", W/${etag}` });
  await badge(`${web}?branch=feature%2Flogin&precision=2&style=for-the-badge`);
  await badge('/v1/badge/no-such-org/web?style=flat-square&precision=1');
  await badge(`${web}?style=neon`);
  await badge(`${web}?precision=3`);
  await badge(`${web}?branch=`);
  await badge(`/v1/badge/${f.org.slug}/%ZZ`);
  await badge(web, {}, s.brokenApi);
}

async function webhooks(s: Scenario): Promise<void> {
  const now = Math.floor(s.clock.now().getTime() / 1000);
  const signedA = (payload: string, timestamp = now) => ({
    'provider-a-signature': signTimestampedPayload({
      payload,
      secret: PROVIDER_A_SECRET,
      timestamp,
    }),
  });
  const deliver = (provider: string, body: string, headers: Record<string, string>, api = s.api) =>
    s.send(OPS.webhook, `/v1/webhooks/${provider}`, jsonInit('POST', body, headers), api);

  const event = JSON.stringify({ id: 'evt_1', type: 'customer.subscription.updated', data: {} });
  await deliver('provider-a', event, signedA(event));
  await deliver('provider-a', event, signedA(event));
  const eventB = JSON.stringify({ event: 'subscription.charged', payload: {} });
  await deliver('provider-b', eventB, {
    'x-provider-b-signature': signRawBodyPayload({ payload: eventB, secret: PROVIDER_B_SECRET }),
    'x-provider-b-event-id': 'evt_b_1',
  });
  const noId = JSON.stringify({ type: 'ping' });
  await deliver('provider-a', noId, signedA(noId));
  await deliver('provider-a', '[1]', signedA('[1]'));
  await deliver('%ZZ', event, signedA(event));
  await deliver('provider-a', event, {});
  await deliver('provider-a', event, { 'provider-a-signature': `t=${now},v1=${'0'.repeat(64)}` });
  await deliver('provider-a', event, signedA(event, now - 301));
  await deliver('provider-z', event, signedA(event));
  await deliver('provider-a', TOO_LARGE, { 'provider-a-signature': `t=${now},v1=00` });
  await s.send(
    OPS.webhook,
    '/v1/webhooks/provider-a',
    bodyInit('POST', 'text/plain', event, signedA(event)),
  );
  const exploding = JSON.stringify({ id: 'evt_2', type: 'explode' });
  await deliver('provider-a', exploding, signedA(exploding));
  await deliver('provider-a', event, signedA(event), s.brokenApi);
}

async function oauthLogin(s: Scenario, f: Fixtures): Promise<void> {
  s.oauthOrgId = f.org.id;
  const start = async () => {
    const started = await s.send(OPS.startLogin, '/auth/github');
    const location = new URL(started.headers.get('location') ?? '');
    const stateCookie = (started.headers.get('set-cookie') ?? '').split(';', 1)[0] as string;
    return { state: location.searchParams.get('state') ?? '', cookie: stateCookie };
  };
  const complete = async (query: (state: string) => string) => {
    const login = await start();
    return s.send(OPS.completeLogin, `/auth/github/callback?${query(login.state)}`, {
      headers: { cookie: login.cookie },
    });
  };
  await complete((state) => `code=ok&state=${state}`);
  await complete((state) => `code=ok&state=${state}x`);
  await complete((state) => `error=access_denied&state=${state}`);
  await complete((state) => `error=redirect_uri_mismatch&state=${state}`);
  await complete((state) => `state=${state}`);
  for (const code of [...Object.keys(FAILING_CODES), UNRESOLVABLE]) {
    await complete((state) => `code=${code}&state=${state}`);
  }
  await s.send(OPS.completeLogin, '/auth/github/callback?code=ok&state=forged');
  await s.send(OPS.completeLogin, '/auth/%ZZ/callback?code=ok');
  await s.send(OPS.completeLogin, '/auth/gitlab/callback?code=ok');
  await s.send(OPS.completeLogin, '/auth/github/callback?code=ok', {}, s.brokenApi);
  await s.send(OPS.startLogin, '/auth/%ZZ');
  await s.send(OPS.startLogin, '/auth/gitlab');
  await s.send(OPS.startLogin, '/auth/broken');
  await s.send(OPS.startLogin, '/auth/github', {}, s.brokenApi);
}

/** Members and roles: the organisation switch, the list, role changes and removals. */
async function members(s: Scenario, f: Fixtures): Promise<void> {
  const team = await s.organisation('team');
  const owner = await sessionBearer(s, 'usr_team_owner', team.id);
  const member = await sessionBearer(s, 'usr_team_member', team.id, 'member');
  await sessionBearer(s, 'usr_team_admin', team.id, 'admin');
  const broken = bearer(WELL_FORMED_SESSION_TOKEN);

  const switchTo = (body: unknown, headers: Record<string, string>, api = s.api) =>
    s.send(
      OPS.switchOrganisation,
      '/v1/session/organisation',
      jsonInit('POST', body, headers),
      api,
    );
  await switchTo({ org: f.org.slug }, member);
  await switchTo({ org: team.slug }, member);
  await switchTo({}, member);
  await switchTo('[1]', member);
  await switchTo({ org: team.slug }, {});
  await switchTo({ org: team.slug }, bearer(f.noExecute));
  await switchTo({ org: f.other.slug }, owner);
  await switchTo(TOO_LARGE, owner);
  await s.send(
    OPS.switchOrganisation,
    '/v1/session/organisation',
    bodyInit('POST', 'text/plain', team.slug, owner),
  );
  await switchTo({ org: team.slug }, broken, s.brokenApi);

  const list = (headers: Record<string, string>, api = s.api) =>
    s.send(OPS.listMembers, '/v1/members', { headers }, api);
  await list(member);
  await list({});
  await list(bearer(f.noExecute));
  await list(broken, s.brokenApi);

  const change = (userId: string, body: unknown, headers = owner, api = s.api) =>
    s.send(OPS.changeMember, `/v1/members/${userId}`, jsonInit('PATCH', body, headers), api);
  await change('usr_team_member', { role: 'admin' });
  await change('usr_team_member', { role: 'root' });
  await change('%ZZ', { role: 'admin' });
  await change('usr_team_member', { role: 'admin' }, {});
  await change('usr_team_admin', { role: 'member' }, member);
  await change('usr_nobody', { role: 'admin' });
  await change('usr_team_owner', { role: 'admin' });
  await change('usr_team_member', TOO_LARGE);
  await s.send(
    OPS.changeMember,
    '/v1/members/usr_team_member',
    bodyInit('PATCH', 'text/plain', 'admin', owner),
  );
  await change('usr_team_member', { role: 'admin' }, broken, s.brokenApi);

  const remove = (userId: string, headers = owner, api = s.api) =>
    s.send(OPS.removeMember, `/v1/members/${userId}`, { method: 'DELETE', headers }, api);
  await remove('usr_team_owner', member);
  await remove('%ZZ');
  await remove('usr_team_admin', {});
  await remove('usr_team_owner');
  await remove('usr_team_admin');
  await remove('usr_team_admin');
  await remove('usr_team_admin', broken, s.brokenApi);
}

/** Linking organisations to GitHub organisations: owners write, any member reads. */
async function githubLinks(s: Scenario, f: Fixtures): Promise<void> {
  const [linked, other] = [await s.organisation('team'), await s.organisation('team')];
  const owner = await sessionBearer(s, 'usr_linking_owner', linked.id);
  const member = await sessionBearer(s, 'usr_linking_member', linked.id, 'member');
  const otherOwner = await sessionBearer(s, 'usr_other_owner', other.id);
  const broken = bearer(WELL_FORMED_SESSION_TOKEN);
  const path = '/v1/organisation/github-link';

  const get = (headers: Record<string, string>, api = s.api) =>
    s.send(OPS.getGithubLink, path, { headers }, api);
  const link = (body: unknown, headers = owner, api = s.api) =>
    s.send(OPS.linkGithub, path, jsonInit('POST', body, headers), api);
  const unlink = (headers: Record<string, string>, api = s.api) =>
    s.send(OPS.unlinkGithub, path, { method: 'DELETE', headers }, api);

  await get(owner);
  await link({ github_org: 'Acme-Inc' });
  await link({ github_org: 'acme-inc' }, otherOwner);
  await link({ github_org: '-acme' });
  await link('[1]');
  await link({ github_org: 'acme' }, {});
  await link({ github_org: 'acme' }, member);
  await link(TOO_LARGE);
  await s.send(OPS.linkGithub, path, bodyInit('POST', 'text/plain', 'acme', owner));
  await link({ github_org: 'acme' }, broken, s.brokenApi);
  await get(member);
  await get(bearer(f.noExecute));
  await get({});
  await get(broken, s.brokenApi);
  await unlink(member);
  await unlink({});
  await unlink(owner);
  await unlink(owner);
  await unlink(broken, s.brokenApi);
}

/** Linking an organisation to a GitHub or Gitea organisation or a GitLab group: owners only. */
async function organisationLinks(s: Scenario, f: Fixtures): Promise<void> {
  const [linked, other] = [await s.organisation('team'), await s.organisation('team')];
  const owner = await sessionBearer(s, 'usr_group_owner', linked.id);
  const member = await sessionBearer(s, 'usr_group_member', linked.id, 'member');
  const otherOwner = await sessionBearer(s, 'usr_group_other_owner', other.id);
  const broken = bearer(WELL_FORMED_SESSION_TOKEN);
  const path = '/v1/organisation/code-host-link';

  const get = (headers: Record<string, string>, api = s.api) =>
    s.send(OPS.getOrganisationLink, path, { headers }, api);
  const link = (body: unknown, headers = owner, api = s.api) =>
    s.send(OPS.linkOrganisation, path, jsonInit('POST', body, headers), api);
  const unlink = (headers: Record<string, string>, api = s.api) =>
    s.send(OPS.unlinkOrganisation, path, { method: 'DELETE', headers }, api);
  const group = { host: 'gitlab', organisation: 'Acme/Platform' };

  await get(owner);
  await link(group);
  await link({ ...group, organisation: 'acme/platform' }, otherOwner);
  await link({ host: 'gitlab', organisation: 'acme/' });
  await link({ host: 'bitbucket', organisation: 'acme' });
  await link('[1]');
  await link(group, {});
  await link(group, member);
  await link(TOO_LARGE);
  await s.send(OPS.linkOrganisation, path, bodyInit('POST', 'text/plain', 'acme', owner));
  await link(group, broken, s.brokenApi);
  await get(member);
  await get(bearer(f.noExecute));
  await get({});
  await get(broken, s.brokenApi);
  await unlink(member);
  await unlink({});
  await unlink(owner);
  await unlink(owner);
  await unlink(broken, s.brokenApi);
}

/** An organisation's minimums: owners write, members and `execute` tokens read. */
async function organisationSettings(s: Scenario, f: Fixtures): Promise<void> {
  const team = await s.organisation('team');
  const owner = await sessionBearer(s, 'usr_minimums_owner', team.id);
  const member = await sessionBearer(s, 'usr_minimums_member', team.id, 'member');
  const broken = bearer(WELL_FORMED_SESSION_TOKEN);
  const path = '/v1/organisation/settings';

  const get = (headers: Record<string, string>, api = s.api) =>
    s.send(OPS.getOrganisationSettings, path, { headers }, api);
  const patch = (body: unknown, headers = owner, api = s.api) =>
    s.send(OPS.patchOrganisationSettings, path, jsonInit('PATCH', body, headers), api);

  await get(member);
  await patch({ min_patch_target: 85, min_project_target: 60 });
  await patch({ min_project_target: null });
  await patch({ min_patch_target: 101 });
  await patch({});
  await patch('[1]');
  await patch({ min_patch_target: 1 }, member);
  await patch({ min_patch_target: 1 }, {});
  await patch(TOO_LARGE);
  await s.send(OPS.patchOrganisationSettings, path, bodyInit('PATCH', 'text/plain', '1', owner));
  await patch({ min_patch_target: 1 }, broken, s.brokenApi);
  await get(owner);
  await get(f.asToken);
  await get(bearer(f.noExecute));
  await get({});
  await get(broken, s.brokenApi);
}

/** Linking repositories to GitHub repositories: admins and owners, through a session. */
async function repositoryLinks(s: Scenario, f: Fixtures): Promise<void> {
  const team = await s.organisation('team');
  const session = (userId: string, role?: string) => sessionBearer(s, userId, team.id, role);
  const owner = await session('usr_repo_link_owner');
  const admin = await session('usr_repo_link_admin', 'admin');
  const member = await session('usr_repo_link_member', 'member');
  const broken = bearer(WELL_FORMED_SESSION_TOKEN);
  const path = `/v1/repos/github-link?org=${team.slug}&repo=web`;
  const body = { github_repo: 'acme/web', token: 'github_pat_scenario0000000000abcd' };

  const get = (headers: Record<string, string>, target = path, api = s.api) =>
    s.send(OPS.getRepoLink, target, { headers }, api);
  const link = (payload: unknown, headers = admin, target = path, api = s.api) =>
    s.send(OPS.linkRepo, target, jsonInit('POST', payload, headers), api);
  const unlink = (headers: Record<string, string>, target = path, api = s.api) =>
    s.send(OPS.unlinkRepo, target, { method: 'DELETE', headers }, api);

  await get(admin);
  await link(body);
  await link({ ...body, api_url: 'https://github.example.com/api/v3' }, owner);
  await link({ ...body, github_repo: 'acme' });
  await link({ ...body, token: '' });
  await link({ ...body, api_url: 'http://github.example.com' });
  await link('[1]');
  await link(body, member);
  await link(body, {});
  await link(body, bearer(f.apiToken));
  await link(body, admin, `/v1/repos/github-link?org=${f.org.slug}&repo=web`);
  await link(body, admin, `/v1/repos/github-link?org=${team.slug}`);
  await link(TOO_LARGE);
  await s.send(OPS.linkRepo, path, bodyInit('POST', 'text/plain', 'acme/web', admin));
  await link(body, broken, path, s.brokenApi);
  await get(owner);
  await get(member);
  await get({});
  await get(admin, '/v1/repos/github-link?repo=web');
  await get(broken, path, s.brokenApi);
  await unlink(member);
  await unlink({});
  await unlink(admin, `/v1/repos/github-link?org=${team.slug}&repo=a%07b`);
  await unlink(admin);
  await unlink(admin);
  await unlink(broken, path, s.brokenApi);

  const hostPath = `/v1/repos/code-host-link?org=${team.slug}&repo=web`;
  const hostBody = {
    host: 'gitlab',
    repository: 'acme/platform/web',
    token: 'glpat-scenario0000abcd',
  };
  const getHost = (headers: Record<string, string>, target = hostPath, api = s.api) =>
    s.send(OPS.getCodeHostLink, target, { headers }, api);
  const linkHost = (payload: unknown, headers = admin, target = hostPath, api = s.api) =>
    s.send(OPS.linkCodeHost, target, jsonInit('POST', payload, headers), api);
  const unlinkHost = (headers: Record<string, string>, target = hostPath, api = s.api) =>
    s.send(OPS.unlinkCodeHost, target, { method: 'DELETE', headers }, api);

  await getHost(admin);
  await linkHost(hostBody);
  await linkHost(
    {
      ...hostBody,
      host: 'gitea',
      api_url: 'https://gitea.example.com/api/v1',
      repository: 'acme/web',
    },
    owner,
  );
  await linkHost({ ...hostBody, host: 'gitea' });
  await linkHost({ ...hostBody, host: 'bitbucket' });
  await linkHost({ ...hostBody, repository: 'acme' });
  await linkHost('[1]');
  await linkHost(hostBody, member);
  await linkHost(hostBody, {});
  await linkHost(TOO_LARGE);
  await s.send(OPS.linkCodeHost, hostPath, bodyInit('POST', 'text/plain', 'acme/web', admin));
  await linkHost(hostBody, broken, hostPath, s.brokenApi);
  await getHost(owner);
  await getHost(member);
  await getHost({});
  await getHost(admin, '/v1/repos/code-host-link?repo=web');
  await getHost(broken, hostPath, s.brokenApi);
  await unlinkHost(member);
  await unlinkHost({});
  await unlinkHost(admin, `/v1/repos/code-host-link?org=${team.slug}&repo=a%07b`);
  await unlinkHost(admin);
  await unlinkHost(admin);
  await unlinkHost(broken, hostPath, s.brokenApi);
}

/** Invites: made, listed, revoked, accepted through the API and through their page. */
async function invites(s: Scenario, f: Fixtures): Promise<void> {
  const team = await s.organisation('team');
  const owner = await sessionBearer(s, 'usr_inviting_owner', team.id);
  const member = await sessionBearer(s, 'usr_inviting_member', team.id, 'member');
  const joiner = await sessionBearer(s, 'usr_joiner', f.other.id, 'member');
  const broken = bearer(WELL_FORMED_SESSION_TOKEN);
  const unknownToken = `cvgi_${'0'.repeat(64)}`;

  const create = (body: unknown, headers = owner, api = s.api) =>
    s.send(OPS.createInvite, '/v1/invites', jsonInit('POST', body, headers), api);
  const made = () => create({}).then((exchange) => bodyOf<{ id: string; token: string }>(exchange));
  const first = await made();
  await create({ role: 'admin' });
  await create({ role: 'root' });
  await create('[1]');
  await create({}, {});
  await create({}, member);
  await create(TOO_LARGE);
  await s.send(OPS.createInvite, '/v1/invites', bodyInit('POST', 'text/plain', 'member', owner));
  await create({}, broken, s.brokenApi);

  const list = (headers: Record<string, string>, api = s.api) =>
    s.send(OPS.listInvites, '/v1/invites', { headers }, api);
  await list(owner);
  await list({});
  await list(member);
  await list(broken, s.brokenApi);

  const accept = (body: unknown, headers = joiner, api = s.api) =>
    s.send(OPS.acceptInvite, '/v1/invites/accept', jsonInit('POST', body, headers), api);
  await accept({ token: first.token });
  await accept({ token: first.token });
  await accept({ token: 42 });
  await accept('[1]');
  await accept({ token: (await made()).token }, member);
  await accept({ token: first.token }, {});
  await accept({ token: first.token }, bearer(f.noExecute));
  await accept(TOO_LARGE);
  await s.send(
    OPS.acceptInvite,
    '/v1/invites/accept',
    bodyInit('POST', 'text/plain', first.token, joiner),
  );
  await accept({ token: unknownToken }, broken, s.brokenApi);

  const revoke = (id: string, headers = owner, api = s.api) =>
    s.send(OPS.revokeInvite, `/v1/invites/${id}`, { method: 'DELETE', headers }, api);
  const revoked = await made();
  await revoke(revoked.id);
  await revoke(first.id);
  await revoke('inv_01aaaaaaaaaaaaaaaaaaaaaaaa');
  await revoke('%ZZ');
  await revoke(revoked.id, {});
  await revoke(revoked.id, member);
  await revoke(revoked.id, broken, s.brokenApi);

  const form = { 'content-type': 'application/x-www-form-urlencoded' };
  const page = (token: string, api = s.api) =>
    s.send(OPS.openInvite, `/auth/invite?token=${token}`, {}, api);
  const join = (body: string, headers: Record<string, string> = form, api = s.api) =>
    s.send(OPS.joinInvite, '/auth/invite', { method: 'POST', headers, body }, api);
  const open = await made();
  await page(open.token);
  await page(revoked.token);
  await page(unknownToken, s.brokenApi);
  await join(`token=${open.token}`);
  await join(`token=${open.token}`, {
    ...form,
    cookie: `covgate_session=${joiner.authorization?.slice(7)}`,
  });
  await join(`token=${revoked.token}`);
  await join(`token=${open.token}`, { ...form, 'sec-fetch-site': 'cross-site' });
  await join(JSON.stringify({ token: open.token }), { 'content-type': 'application/json' });
  await join(TOO_LARGE);
  await join(`token=${unknownToken}`, form, s.brokenApi);
}

/** One-time sign-in links, opened by a browser, previewed, and posted from their page. */
async function signInLinks(s: Scenario, f: Fixtures): Promise<void> {
  const navigation = { 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' };
  const form = { 'content-type': 'application/x-www-form-urlencoded' };
  const link = async () =>
    (
      await issueSignInLink(s.store, {
        orgId: f.org.id,
        userId: 'usr_link',
        sessionSecret: SESSION_SECRET,
        now: s.clock.now(),
      })
    ).token;
  const open = (token: string, headers: Record<string, string> = navigation, api = s.api) =>
    s.send(OPS.openLink, `/auth/link?token=${token}`, { headers }, api);
  const post = (body: string, headers: Record<string, string> = form, api = s.api) =>
    s.send(OPS.useLink, '/auth/link', { method: 'POST', headers, body }, api);

  const opened = await link();
  await open(opened);
  await open(opened);
  await open('cvgl_nope');
  const previewed = await link();
  await open(previewed, {});
  await post(`token=${previewed}`);
  await post(`token=${previewed}`);
  await post(`token=${await link()}`, { ...form, 'sec-fetch-site': 'cross-site' });
  await post(JSON.stringify({ token: previewed }), { 'content-type': 'application/json' });
  await post(TOO_LARGE);
  await open(`cvgl_${'0'.repeat(64)}`, navigation, s.brokenApi);
  await post(`token=cvgl_${'0'.repeat(64)}`, form, s.brokenApi);
}

async function logout(s: Scenario, f: Fixtures): Promise<void> {
  const service = bearer(SERVICE_TOKEN);
  const third = await createSession(s, { user_id: 'usr_3', org_id: f.org.id });
  const thirdCookie = { cookie: `covgate_session=${third.token}` };
  const end = (sessionId: string, headers: Record<string, string>, api = s.api) =>
    s.send(OPS.logout, `/v1/sessions/${sessionId}`, { method: 'DELETE', headers }, api);
  await end(f.otherSession.session_id, f.asSession);
  await end(third.session_id, thirdCookie);
  await end(third.session_id, { ...thirdCookie, origin: DASHBOARD_ORIGIN });
  await end(f.otherSession.session_id, service);
  await end(f.otherSession.session_id, service);
  await end('%ZZ', service);
  await end(f.session.session_id, {});
  await end(f.session.session_id, bearer(f.noExecute));
  await end(f.session.session_id, f.asSession);
  await end(f.session.session_id, service, s.brokenApi);
}

/** A call of one route with an API token in front of it; a `body` is sent as JSON. */
type TokenCall = [label: string, path: string, method?: string, body?: unknown];

/**
 * One call of every route an API token can call, for `org`'s repository `web`: the
 * sections that see every one of them refused call this list.
 */
function everyTokenRoute(f: Fixtures, org: Organisation): TokenCall[] {
  const repo = `org=${org.slug}&repo=web`;
  const repoLink = `/v1/repos/github-link?${repo}`;
  return [
    [OPS.list, `/v1/executions?${repo}`],
    [OPS.series, `/v1/executions/series?${repo}`],
    [OPS.ingest, '/v1/executions', 'POST', run(80)],
    [OPS.validate, '/v1/auth/validate', 'POST'],
    [OPS.repos, `/v1/repos?org=${org.slug}`],
    [OPS.getExecution, '/v1/executions/exe_x'],
    [OPS.getExecutionFile, '/v1/executions/exe_x/files/a.ts'],
    [OPS.getExecutionFileSource, '/v1/executions/exe_x/files/a.ts/source'],
    [OPS.finish, '/v1/executions/finish', 'POST', { repo: 'web', commit: 'e'.repeat(40) }],
    [
      OPS.skip,
      '/v1/executions/skip',
      'POST',
      { repo: 'web', branch: 'docs', commit: 'e'.repeat(40), reason: 'docs' },
    ],
    [OPS.getRepoSettings, `/v1/repos/settings?${repo}`],
    [OPS.getRepoHeadline, `/v1/repos/headline?${repo}`],
    [OPS.ciTrust, `/v1/repos/ci-trust?${repo}`],
    [OPS.patchRepoSettings, '/v1/repos/settings', 'PATCH', { repo: 'web', patch_target: 1 }],
    [OPS.currentSession, '/v1/session'],
    [OPS.switchOrganisation, '/v1/session/organisation', 'POST', { org: 'x' }],
    [OPS.listMembers, '/v1/members'],
    [OPS.changeMember, '/v1/members/usr_1', 'PATCH', { role: 'admin' }],
    [OPS.removeMember, '/v1/members/usr_1', 'DELETE'],
    [OPS.listInvites, '/v1/invites'],
    [OPS.createInvite, '/v1/invites', 'POST', {}],
    [OPS.acceptInvite, '/v1/invites/accept', 'POST', { token: 'x' }],
    [OPS.revokeInvite, '/v1/invites/inv_x', 'DELETE'],
    [OPS.getGithubLink, '/v1/organisation/github-link'],
    [OPS.linkGithub, '/v1/organisation/github-link', 'POST', { github_org: 'acme' }],
    [OPS.unlinkGithub, '/v1/organisation/github-link', 'DELETE'],
    [OPS.getOrganisationLink, '/v1/organisation/code-host-link'],
    [
      OPS.linkOrganisation,
      '/v1/organisation/code-host-link',
      'POST',
      { host: 'gitea', organisation: 'acme' },
    ],
    [OPS.unlinkOrganisation, '/v1/organisation/code-host-link', 'DELETE'],
    [OPS.getOrganisationSettings, '/v1/organisation/settings'],
    [OPS.patchOrganisationSettings, '/v1/organisation/settings', 'PATCH', { min_patch_target: 1 }],
    [OPS.getRepoLink, repoLink],
    [OPS.linkRepo, repoLink, 'POST', { github_repo: 'a/b', token: 't' }],
    [OPS.unlinkRepo, repoLink, 'DELETE'],
    [OPS.getCodeHostLink, `/v1/repos/code-host-link?${repo}`],
    [
      OPS.linkCodeHost,
      `/v1/repos/code-host-link?${repo}`,
      'POST',
      { host: 'gitlab', repository: 'a/b', token: 't' },
    ],
    [OPS.unlinkCodeHost, `/v1/repos/code-host-link?${repo}`, 'DELETE'],
    [OPS.listTokens, '/v1/tokens'],
    [OPS.createToken, '/v1/tokens', 'POST', { name: 'x' }],
    [OPS.getToken, f.tokenPath],
    [OPS.patchToken, f.tokenPath, 'PATCH', { name: 'x' }],
    [OPS.revokeToken, f.tokenPath, 'DELETE'],
    [OPS.rotateToken, `${f.tokenPath}/rotate`, 'POST'],
    [OPS.logout, `/v1/sessions/${f.session.session_id}`, 'DELETE'],
  ];
}

function sendTokenCall(
  s: Scenario,
  [label, path, method, body]: TokenCall,
  headers: Record<string, string>,
  api = s.api,
): Promise<Exchange> {
  const init = body === undefined ? { method, headers } : jsonInit(method ?? 'POST', body, headers);
  return s.send(label, path, init, api);
}

/** The enterprise limit is one request a minute, shared by every route the token calls. */
async function rateLimits(s: Scenario, f: Fixtures): Promise<void> {
  const headers = bearer(f.limitedToken);
  await s.send(OPS.list, `/v1/executions?org=${f.limited.slug}&repo=web`, { headers });
  for (const call of everyTokenRoute(f, f.limited)) await sendTokenCall(s, call, headers);
}

/** One verification holds the only argon2 slot: every route an API token calls answers 503. */
async function overload(s: Scenario, f: Fixtures): Promise<void> {
  let release = () => {};
  s.holdVerifications = new Promise((resolve) => {
    release = resolve;
  });
  const started = new Promise<void>((resolve) => {
    s.verificationStarted = resolve;
  });
  const unknown = (i: number) => bearer(`cvg_${i.toString(16).padStart(8, '0')}${'5a'.repeat(16)}`);
  const held = s.overloadedApi.handle(
    new Request(`${ORIGIN}/v1/auth/validate`, { method: 'POST', headers: unknown(0) }),
    { remoteAddress: '198.51.100.9' },
  );
  await started;
  for (const [index, call] of everyTokenRoute(f, f.org).entries()) {
    await sendTokenCall(s, call, unknown(index + 1), s.overloadedApi);
  }
  release();
  await held;
  s.holdVerifications = null;
}
