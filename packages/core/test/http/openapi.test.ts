import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import {
  providerA,
  providerB,
  signRawBodyPayload,
  signTimestampedPayload,
} from '@covgate/webhook-signature';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import pino from 'pino';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createMemoryAuditSink } from '../../src/audit/audit-sink.js';
import type { CovgateApi } from '../../src/http/api-types.js';
import { type CreateApiOptions, createApi } from '../../src/http/create-api.js';
import { MAX_BODY_BYTES } from '../../src/http/request-body.js';
import { Router } from '../../src/http/router.js';
import { coreRoutes } from '../../src/http/routes/route-table.js';
import { type CodeHost, CodeHostError, type CodeHostFailure } from '../../src/oauth/code-host.js';
import { createMemoryStore } from '../../src/storage/memory-store.js';
import type { Organisation, Plan, Store } from '../../src/storage/store.js';
import { buildOrganisation } from '../../src/testing/fixtures.js';
import { createManualClock, type ManualClock } from '../../src/time/timestamp.js';
import { generateApiToken } from '../../src/tokens/token-format.js';
import { createTokenHasher } from '../../src/tokens/token-hash.js';
import { resolveWebhookOptions } from '../../src/webhooks/webhook-options.js';

// ---------------------------------------------------------------------------------------------
// The document

interface HeaderObject {
  $ref?: string;
  required?: boolean;
  schema?: unknown;
}
interface ResponseObject {
  $ref?: string;
  description?: string;
  headers?: Record<string, HeaderObject>;
  content?: Record<string, { schema?: unknown }>;
}
interface ParameterObject {
  $ref?: string;
  name?: string;
  in?: string;
  required?: boolean;
}
interface OperationObject {
  operationId?: string;
  summary?: string;
  tags?: string[];
  security?: unknown[];
  parameters?: ParameterObject[];
  requestBody?: { content?: Record<string, { schema?: unknown }> };
  responses?: Record<string, ResponseObject>;
}
type PathItem = Record<string, unknown> & { parameters?: ParameterObject[] };
interface OpenApiDocument {
  openapi: string;
  info: { title?: unknown; version?: unknown };
  servers?: { url: string }[];
  paths: Record<string, PathItem>;
  components: Record<string, Record<string, unknown>>;
}

const DOCUMENT_URL = new URL('../../../../docs/openapi.yaml', import.meta.url);
const doc = parse(readFileSync(DOCUMENT_URL, 'utf8')) as OpenApiDocument;
const DOCUMENT_ID = 'https://covgate.test/openapi.json';
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

function escapePointer(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}

function nodeAt(pointer: string): unknown {
  let node: unknown = doc;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** The pointer of the node at `pointer` once every local `$ref` on the way is followed. */
function locate(pointer: string): string {
  let current = pointer;
  for (let hops = 0; hops < 10; hops++) {
    const node = nodeAt(current) as { $ref?: unknown } | undefined;
    if (typeof node?.$ref !== 'string') return current;
    current = node.$ref.slice(1);
  }
  throw new Error(`$ref loop at ${pointer}`);
}

function resolved<T>(pointer: string): T {
  return nodeAt(locate(pointer)) as T;
}

/** `METHOD /path` of every operation in the document, with the pointer of the operation. */
function documentedOperations(): Map<string, string> {
  const operations = new Map<string, string>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of HTTP_METHODS) {
      if (item[method] !== undefined) {
        operations.set(
          `${method.toUpperCase()} ${path}`,
          `/paths/${escapePointer(path)}/${method}`,
        );
      }
    }
  }
  return operations;
}

/** Every `$ref` value in the document with where it occurs. */
function allRefs(node: unknown, at = ''): { at: string; ref: string }[] {
  if (typeof node !== 'object' || node === null) return [];
  const refs: { at: string; ref: string }[] = [];
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' && typeof value === 'string') refs.push({ at, ref: value });
    else refs.push(...allRefs(value, `${at}/${escapePointer(key)}`));
  }
  return refs;
}

// strictRequired is off: `anyOf: [{required: [a]}, {required: [b]}]` is the idiom for "a or b".
const ajv = new Ajv2020({
  strict: true,
  strictRequired: false,
  allErrors: true,
  allowUnionTypes: true,
});
addFormats(ajv);
// The document is added whole so that `#/components/...` references resolve; these are the
// OpenAPI fields around the schemas, which JSON Schema does not know.
ajv.addVocabulary(['openapi', 'info', 'servers', 'tags', 'paths', 'components']);
ajv.addSchema(doc, DOCUMENT_ID);

function validatorAt(pointer: string) {
  const validate = ajv.getSchema(`${DOCUMENT_ID}#${locate(pointer)}`);
  if (!validate) throw new Error(`no schema at ${pointer}`);
  return validate;
}

/** Pointers of the schemas of every response (operations and shared responses). */
function responseSchemaPointers(): string[] {
  const responsePointers = [
    ...[...documentedOperations().values()].flatMap((operation) =>
      Object.keys(resolved<OperationObject>(operation).responses ?? {}).map(
        (status) => `${operation}/responses/${status}`,
      ),
    ),
    ...Object.keys(doc.components.responses ?? {}).map((name) => `/components/responses/${name}`),
  ];
  return responsePointers.flatMap((pointer) => {
    const location = locate(pointer);
    const content = resolved<ResponseObject>(location).content ?? {};
    return Object.keys(content).map((type) => `${location}/content/${escapePointer(type)}/schema`);
  });
}

/** Object schemas reachable from `pointer` that do not forbid undocumented properties. */
function openObjects(pointer: string, seen = new Set<string>()): string[] {
  const location = locate(pointer);
  if (seen.has(location)) return [];
  seen.add(location);
  const schema = nodeAt(location) as Record<string, unknown>;
  const open: string[] = [];
  if ((schema.type === 'object' || schema.properties) && schema.additionalProperties !== false) {
    open.push(location);
  }
  for (const key of ['properties']) {
    for (const name of Object.keys((schema[key] as object | undefined) ?? {})) {
      open.push(...openObjects(`${location}/${key}/${escapePointer(name)}`, seen));
    }
  }
  if (schema.items) open.push(...openObjects(`${location}/items`, seen));
  for (const key of ['oneOf', 'anyOf', 'allOf']) {
    ((schema[key] as unknown[] | undefined) ?? []).forEach((_, index) => {
      open.push(...openObjects(`${location}/${key}/${index}`, seen));
    });
  }
  return open;
}

// ---------------------------------------------------------------------------------------------
// Checking a real response against a documented response

interface Exchange {
  /** `METHOD /pattern` of the operation, or the name of a shared response for cross-cutting rules. */
  label: string;
  /** What was sent, for messages. */
  request: string;
  requestBody: unknown;
  status: number;
  headers: Headers;
  text: string;
}

function headerValue(schema: { type?: unknown } | undefined, raw: string): unknown {
  return schema?.type === 'integer' && /^-?[0-9]+$/.test(raw) ? Number(raw) : raw;
}

/** Everything in `exchange` that disagrees with the documented response at `pointer`. */
function problemsWith(exchange: Exchange, pointer: string): string[] {
  const where = `${exchange.request} -> ${exchange.status}`;
  const location = locate(pointer);
  const response = nodeAt(location) as ResponseObject | undefined;
  if (!response) return [`${where}: status not documented`];
  const problems: string[] = [];

  for (const name of Object.keys(response.headers ?? {})) {
    const headerPointer = locate(`${location}/headers/${escapePointer(name)}`);
    const header = nodeAt(headerPointer) as HeaderObject;
    const raw = exchange.headers.get(name);
    if (raw === null) {
      if (header.required) problems.push(`${where}: required header ${name} missing`);
      continue;
    }
    const validate = validatorAt(`${headerPointer}/schema`);
    if (!validate(headerValue(header.schema as { type?: unknown }, raw))) {
      problems.push(`${where}: header ${name}: ${raw}: ${ajv.errorsText(validate.errors)}`);
    }
  }

  const contentType = exchange.headers.get('content-type');
  if (!response.content) {
    if (exchange.text !== '' || contentType !== null) {
      problems.push(`${where}: documented without a body, got ${contentType}: ${exchange.text}`);
    }
    return problems;
  }
  const essence = contentType?.split(';', 1)[0]?.trim().toLowerCase() ?? '';
  if (!Object.hasOwn(response.content, essence)) {
    return [...problems, `${where}: content type ${contentType} not documented`];
  }
  const validate = validatorAt(`${location}/content/${escapePointer(essence)}/schema`);
  const body = essence === 'application/json' ? JSON.parse(exchange.text) : exchange.text;
  if (!validate(body)) {
    problems.push(`${where}: ${exchange.text}: ${ajv.errorsText(validate.errors)}`);
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------
// The API under test

const ORIGIN = 'http://localhost';
const DASHBOARD_ORIGIN = 'https://dashboard.example.com';
const DASHBOARD_URL = `${DASHBOARD_ORIGIN}/welcome`;
const SERVICE_TOKEN = 'openapi-service-token-0123456789abcdef0123456789';
const SESSION_SECRET = 'openapi-session-secret-0123456789abcdef0123';
const PROVIDER_A_SECRET = 'whsec_openapi_provider_a';
const PROVIDER_B_SECRET = 'openapi_provider_b';
const START = new Date('2026-03-01T12:00:00Z');
const hasher = createTokenHasher({ memoryCost: 1024, timeCost: 1 });
const TOO_LARGE = 'x'.repeat(MAX_BODY_BYTES + 1);

/** Codes the fake code host fails on, and how. */
const FAILING_CODES: Record<string, CodeHostFailure> = {
  refused: 'invalid-code',
  failed: 'failed',
  unreachable: 'unavailable',
  slow: 'timeout',
};
/** An account whose identity the embedder's hook cannot resolve. */
const UNRESOLVABLE_ACCOUNT = 'unresolvable';

function silentLogger() {
  return pino({ base: null }, new Writable({ write: (_chunk, _encoding, done) => done() }));
}

/** A code host in memory: the authorize URL carries the state, codes are scripted. */
const fakeCodeHost: CodeHost = {
  authorizationUrl: ({ state }) =>
    new URL(`https://code-host.test/login/oauth/authorize?state=${encodeURIComponent(state)}`),
  async exchangeCode({ code }) {
    const failure = FAILING_CODES[code];
    if (failure) throw new CodeHostError(failure, `scripted ${failure}`);
    return { id: code === 'unresolvable' ? UNRESOLVABLE_ACCOUNT : '4242', login: 'octo-cat' };
  },
};

/** A code host whose own code fails: an embedder's bug. */
const brokenCodeHost: CodeHost = {
  authorizationUrl: () => {
    throw new Error('misconfigured code host');
  },
  exchangeCode: async () => ({ id: '1', login: 'nobody' }),
};

function baseOptions(store: Store, clock: ManualClock): CreateApiOptions {
  return {
    store,
    sessionSecret: SESSION_SECRET,
    serviceToken: SERVICE_TOKEN,
    allowedOrigins: [DASHBOARD_ORIGIN],
    secureCookies: false,
    auditSink: createMemoryAuditSink(),
    logger: silentLogger(),
    clock,
    tokenHasher: hasher,
  };
}

function jsonInit(
  method: string,
  body: unknown,
  headers: Record<string, string> = {},
): RequestInit {
  return {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  };
}

function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

const routeLabels = new Router(
  coreRoutes({ webhooks: resolveWebhookOptions() }).map((route) => ({
    ...route,
    handler: `${route.method} ${route.pattern}`,
  })),
);

/** Drives the APIs and keeps every exchange, labelled with the operation it exercises. */
class Scenario {
  readonly exchanges: Exchange[] = [];
  readonly mislabelled: string[] = [];
  readonly clock = createManualClock(START);
  readonly store = createMemoryStore();
  readonly brokenStore = createMemoryStore();
  readonly api: CovgateApi;
  /** The same API over a closed store and without OAuth or webhook secrets: every 500 and 501. */
  readonly brokenApi: CovgateApi;

  /** The organisation the OAuth `resolveIdentity` hook signs everyone into. */
  oauthOrgId = '';

  constructor() {
    this.api = createApi({
      ...baseOptions(this.store, this.clock),
      // One request a minute for enterprise tokens, so that 429 is quick to reach.
      rateLimit: { limits: { enterprise: 1 } },
      oauth: {
        codeHosts: { github: fakeCodeHost, broken: brokenCodeHost },
        dashboardUrl: DASHBOARD_URL,
        resolveIdentity: async ({ user }) => {
          if (user.id === UNRESOLVABLE_ACCOUNT) throw new Error('no such account');
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
    this.brokenApi = createApi(baseOptions(this.brokenStore, this.clock));
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
      // A path parameter that is not valid percent-encoding: the router refuses it (400).
    }
  }

  async organisation(plan: Plan = 'free'): Promise<Organisation> {
    const org = buildOrganisation({ plan, createdAt: this.clock.now() });
    await this.store.createOrganisation(org);
    return org;
  }

  /** An API token inserted in the store, for scopes the API cannot grant. */
  async insertToken(org: Organisation, scopes: string[]): Promise<string> {
    const { id, token } = generateApiToken();
    await this.store.insertToken({
      id,
      orgId: org.id,
      name: 'inserted',
      scopes,
      agentType: '',
      hash: await hasher.hash(token),
      status: 'active',
      createdAt: this.clock.now(),
      lastUsedAt: null,
      gracePeriodEndsAt: null,
    });
    return token;
  }
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

const WELL_FORMED_API_TOKEN = `cvg_${'a'.repeat(40)}`;
const WELL_FORMED_SESSION_TOKEN = `cvgs_${'a'.repeat(64)}`;
const FOREIGN_TOKEN_ID = '0123456789abcdef0123456789abcdef';

/**
 * One run through every route that produces every documented status. The order matters
 * only where noted (rate limiting, rotation).
 */
async function runScenario(s: Scenario): Promise<void> {
  const org = await s.organisation();
  const other = await s.organisation();
  const limited = await s.organisation('enterprise');
  s.oauthOrgId = org.id;
  const noExecute = await s.insertToken(org, []);
  const limitedToken = await s.insertToken(limited, ['execute']);

  // Health and the cross-cutting answers.
  await s.send('GET /health', '/health');
  await s.send('NotFound', '/v2/nothing-here');
  await s.send('MethodNotAllowed', '/health', { method: 'DELETE' });
  await s.send('MethodNotAllowed', '/v1/tokens', { method: 'PUT' });
  await s.send('Preflight', '/v1/tokens', {
    method: 'OPTIONS',
    headers: { origin: DASHBOARD_ORIGIN, 'access-control-request-method': 'POST' },
  });
  await s.send('Preflight', '/not/a/route', { method: 'OPTIONS' });

  // Sessions.
  const create = 'POST /v1/sessions/create';
  const service = bearer(SERVICE_TOKEN);
  const session = bodyOf<{ token: string; session_id: string }>(
    await s.send(
      create,
      '/v1/sessions/create',
      jsonInit('POST', { user_id: 'usr_1', org_id: org.id, ttl: 9 }, service),
    ),
  );
  const otherSession = bodyOf<{ token: string; session_id: string }>(
    await s.send(
      create,
      '/v1/sessions/create',
      jsonInit('POST', { user_id: 'usr_2', org_id: other.id }, service),
    ),
  );
  await s.send(
    create,
    '/v1/sessions/create',
    jsonInit('POST', { user_id: '', org_id: org.id }, service),
  );
  await s.send(
    create,
    '/v1/sessions/create',
    jsonInit('POST', { user_id: 'u', org_id: 'org_nope' }, service),
  );
  await s.send(create, '/v1/sessions/create', jsonInit('POST', '[1]', service));
  await s.send(create, '/v1/sessions/create', jsonInit('POST', { user_id: 'u', org_id: org.id }));
  await s.send(create, '/v1/sessions/create', jsonInit('POST', TOO_LARGE, service));
  await s.send(create, '/v1/sessions/create', {
    method: 'POST',
    headers: { ...service, 'content-type': 'text/plain' },
    body: 'user_id=u',
  });
  await s.send(
    create,
    '/v1/sessions/create',
    jsonInit('POST', { user_id: 'u', org_id: org.id }, service),
    s.brokenApi,
  );
  const asSession = bearer(session.token);
  const cookie = { cookie: `covgate_session=${session.token}` };

  // Tokens: create.
  const tokens = 'POST /v1/tokens';
  const created = bodyOf<{ id: string; secret: string }>(
    await s.send(
      tokens,
      '/v1/tokens',
      jsonInit('POST', { name: 'ci', agent_type: 'github-actions' }, asSession),
    ),
  );
  const apiToken = created.secret;
  const asToken = bearer(apiToken);
  await s.send(tokens, '/v1/tokens', jsonInit('POST', { name: ' ' }, asSession));
  await s.send(tokens, '/v1/tokens', jsonInit('POST', { name: 'x', scopes: ['admin'] }, asSession));
  await s.send(tokens, '/v1/tokens', jsonInit('POST', { name: 'x', agent_type: 'a b' }, asSession));
  await s.send(tokens, '/v1/tokens', jsonInit('POST', '{"name":', asSession));
  await s.send(tokens, '/v1/tokens', jsonInit('POST', { name: 'x' }));
  await s.send(tokens, '/v1/tokens', jsonInit('POST', { name: 'x' }, asToken));
  await s.send(tokens, '/v1/tokens', jsonInit('POST', { name: 'x' }, cookie));
  await s.send(tokens, '/v1/tokens', jsonInit('POST', TOO_LARGE, asSession));
  await s.send(tokens, '/v1/tokens', {
    method: 'POST',
    headers: { ...asSession, 'content-type': 'text/plain' },
    body: 'x',
  });
  await s.send(
    tokens,
    '/v1/tokens',
    jsonInit('POST', { name: 'x' }, bearer(WELL_FORMED_SESSION_TOKEN)),
    s.brokenApi,
  );

  // Tokens: list and read.
  await s.send('GET /v1/tokens', '/v1/tokens', { headers: asSession });
  await s.send('GET /v1/tokens', '/v1/tokens', { headers: cookie });
  await s.send('GET /v1/tokens', '/v1/tokens');
  await s.send('GET /v1/tokens', '/v1/tokens', { headers: asToken });
  await s.send(
    'GET /v1/tokens',
    '/v1/tokens',
    { headers: bearer(WELL_FORMED_SESSION_TOKEN) },
    s.brokenApi,
  );
  const one = 'GET /v1/tokens/{id}';
  await s.send(one, `/v1/tokens/${created.id}`, { headers: asSession });
  await s.send(one, '/v1/tokens/%E0%A4%A', { headers: asSession });
  await s.send(one, `/v1/tokens/${created.id}`);
  await s.send(one, `/v1/tokens/${created.id}`, { headers: asToken });
  await s.send(one, `/v1/tokens/${created.id}`, { headers: bearer(otherSession.token) });
  await s.send(one, '/v1/tokens/not-an-id', { headers: asSession });
  await s.send(
    one,
    `/v1/tokens/${FOREIGN_TOKEN_ID}`,
    { headers: bearer(WELL_FORMED_SESSION_TOKEN) },
    s.brokenApi,
  );

  // Executions: ingest and list (a session acts for its organisation without a scope).
  const ingest = 'POST /v1/executions';
  const run = (coverage: number, branch = 'main') => ({ repo: 'web', branch, coverage });
  await s.send(ingest, '/v1/executions', jsonInit('POST', run(84.13), asToken));
  await s.send(
    ingest,
    '/v1/executions',
    jsonInit('POST', { ...run(83.9, 'feature/login'), org: org.slug }, asToken),
  );
  await s.send(ingest, '/v1/executions', jsonInit('POST', run(81, 'feature/drop'), asSession));
  await s.send(
    ingest,
    '/v1/executions',
    jsonInit(
      'POST',
      { ...run(84.6), base_branch: 'main', warn_threshold: 0.25, fail_threshold: 2 },
      { ...cookie, origin: DASHBOARD_ORIGIN },
    ),
  );
  await s.send(ingest, '/v1/executions', jsonInit('POST', run(101), asToken));
  await s.send(
    ingest,
    '/v1/executions',
    jsonInit('POST', { ...run(80), warn_threshold: 2, fail_threshold: 1 }, asToken),
  );
  await s.send(ingest, '/v1/executions', jsonInit('POST', '[]', asToken));
  await s.send(ingest, '/v1/executions', jsonInit('POST', run(80)));
  await s.send(ingest, '/v1/executions', jsonInit('POST', run(80), bearer(noExecute)));
  await s.send(
    ingest,
    '/v1/executions',
    jsonInit('POST', { ...run(80), org: other.slug }, asToken),
  );
  await s.send(ingest, '/v1/executions', jsonInit('POST', run(80), cookie));
  await s.send(ingest, '/v1/executions', jsonInit('POST', TOO_LARGE, asToken));
  await s.send(ingest, '/v1/executions', {
    method: 'POST',
    headers: { ...asToken, 'content-type': 'text/csv' },
    body: 'web,main,80',
  });
  await s.send(
    ingest,
    '/v1/executions',
    jsonInit('POST', run(80), bearer(WELL_FORMED_API_TOKEN)),
    s.brokenApi,
  );

  const list = 'GET /v1/executions';
  const query = `org=${encodeURIComponent(org.slug)}&repo=web`;
  await s.send(list, `/v1/executions?${query}`, { headers: asToken });
  await s.send(list, `/v1/executions?${query}&limit=100`, { headers: cookie });
  const firstPage = bodyOf<{ next_cursor: string }>(
    await s.send(list, `/v1/executions?${query}&limit=2&cursor=`, { headers: asSession }),
  );
  await s.send(list, `/v1/executions?${query}&limit=2&cursor=${firstPage.next_cursor}`, {
    headers: asSession,
  });
  await s.send(list, '/v1/executions?repo=web', { headers: asToken });
  await s.send(list, `/v1/executions?org=${org.slug}`, { headers: asToken });
  await s.send(list, `/v1/executions?${query}&limit=0`, { headers: asToken });
  await s.send(list, `/v1/executions?${query}&cursor=not-a-cursor`, { headers: asToken });
  await s.send(list, `/v1/executions?${query}`);
  await s.send(list, `/v1/executions?${query}`, { headers: bearer('cvg_short') });
  await s.send(list, `/v1/executions?${query}`, { headers: bearer(noExecute) });
  await s.send(list, `/v1/executions?org=${other.slug}&repo=web`, { headers: asToken });
  await s.send(
    list,
    `/v1/executions?${query}`,
    { headers: bearer(WELL_FORMED_API_TOKEN) },
    s.brokenApi,
  );

  // Token validation.
  const validate = 'POST /v1/auth/validate';
  await s.send(validate, '/v1/auth/validate', { method: 'POST', headers: asToken });
  await s.send(validate, '/v1/auth/validate', jsonInit('POST', { token: apiToken }));
  await s.send(validate, '/v1/auth/validate', jsonInit('POST', { token: 42 }));
  await s.send(validate, '/v1/auth/validate', jsonInit('POST', { token: apiToken, extra: true }));
  await s.send(validate, '/v1/auth/validate', { method: 'POST' });
  await s.send(validate, '/v1/auth/validate', { method: 'POST', headers: asSession });
  await s.send(validate, '/v1/auth/validate', {
    method: 'POST',
    headers: { authorization: `Basic ${apiToken}` },
  });
  await s.send(validate, '/v1/auth/validate', jsonInit('POST', TOO_LARGE));
  await s.send(validate, '/v1/auth/validate', {
    method: 'POST',
    headers: { 'content-type': 'text/plain' },
    body: apiToken,
  });
  await s.send(
    validate,
    '/v1/auth/validate',
    { method: 'POST', headers: bearer(WELL_FORMED_API_TOKEN) },
    s.brokenApi,
  );

  // Tokens: update, rotate, revoke.
  const patch = 'PATCH /v1/tokens/{id}';
  const path = `/v1/tokens/${created.id}`;
  await s.send(
    patch,
    path,
    jsonInit('PATCH', { name: 'ci main', scopes: ['execute', 'execute'] }, asSession),
  );
  await s.send(patch, path, jsonInit('PATCH', {}, asSession));
  await s.send(patch, path, jsonInit('PATCH', { scopes: [] }, asSession));
  await s.send(patch, '/v1/tokens/%ZZ', jsonInit('PATCH', { name: 'x' }, asSession));
  await s.send(patch, path, jsonInit('PATCH', { name: 'x' }));
  await s.send(patch, path, jsonInit('PATCH', { name: 'x' }, asToken));
  await s.send(patch, path, jsonInit('PATCH', { name: 'x' }, bearer(otherSession.token)));
  await s.send(patch, path, jsonInit('PATCH', TOO_LARGE, asSession));
  await s.send(patch, path, {
    method: 'PATCH',
    headers: { ...asSession, 'content-type': 'application/xml' },
    body: '<name/>',
  });
  await s.send(
    patch,
    path,
    jsonInit('PATCH', { name: 'x' }, bearer(WELL_FORMED_SESSION_TOKEN)),
    s.brokenApi,
  );

  const rotate = 'POST /v1/tokens/{id}/rotate';
  const rotated = bodyOf<{ id: string }>(
    await s.send(rotate, `${path}/rotate`, { method: 'POST', headers: asSession }),
  );
  await s.send(
    rotate,
    `/v1/tokens/${rotated.id}/rotate`,
    jsonInit('POST', { grace_period_seconds: 0 }, asSession),
  );
  await s.send(rotate, `${path}/rotate`, jsonInit('POST', {}, asSession));
  await s.send(
    rotate,
    `/v1/tokens/${rotated.id}/rotate`,
    jsonInit('POST', { grace_period_seconds: -1 }, asSession),
  );
  await s.send(rotate, '/v1/tokens/%ZZ/rotate', { method: 'POST', headers: asSession });
  await s.send(rotate, `${path}/rotate`, { method: 'POST' });
  await s.send(rotate, `${path}/rotate`, { method: 'POST', headers: asToken });
  await s.send(rotate, `/v1/tokens/${FOREIGN_TOKEN_ID}/rotate`, {
    method: 'POST',
    headers: asSession,
  });
  await s.send(rotate, `${path}/rotate`, jsonInit('POST', TOO_LARGE, asSession));
  await s.send(rotate, `${path}/rotate`, {
    method: 'POST',
    headers: { ...asSession, 'content-type': 'text/plain' },
    body: '60',
  });
  await s.send(
    rotate,
    `${path}/rotate`,
    { method: 'POST', headers: bearer(WELL_FORMED_SESSION_TOKEN) },
    s.brokenApi,
  );

  const revoke = 'DELETE /v1/tokens/{id}';
  await s.send(revoke, path, { method: 'DELETE', headers: asSession });
  await s.send(revoke, path, {
    method: 'DELETE',
    headers: { ...cookie, origin: DASHBOARD_ORIGIN },
  });
  await s.send(revoke, '/v1/tokens/%ZZ', { method: 'DELETE', headers: asSession });
  await s.send(revoke, path, { method: 'DELETE' });
  await s.send(revoke, path, { method: 'DELETE', headers: cookie });
  await s.send(revoke, path, { method: 'DELETE', headers: bearer(otherSession.token) });
  await s.send(
    revoke,
    path,
    { method: 'DELETE', headers: bearer(WELL_FORMED_SESSION_TOKEN) },
    s.brokenApi,
  );

  // Badge.
  const badge = 'GET /v1/badge/{org}/{repo}';
  const svg = await s.send(badge, `/v1/badge/${org.slug}/web`);
  await s.send(badge, `/v1/badge/${org.slug}/web`, {
    headers: { 'if-none-match': svg.headers.get('etag') ?? '' },
  });
  await s.send(badge, `/v1/badge/${org.slug}/web`, {
    headers: { 'if-none-match': `"stale", W/${svg.headers.get('etag')}` },
  });
  await s.send(
    badge,
    `/v1/badge/${org.slug}/web?branch=feature%2Flogin&precision=2&style=for-the-badge`,
  );
  await s.send(badge, '/v1/badge/no-such-org/web?style=flat-square&precision=1');
  await s.send(badge, `/v1/badge/${org.slug}/web?style=neon`);
  await s.send(badge, `/v1/badge/${org.slug}/web?precision=3`);
  await s.send(badge, `/v1/badge/${org.slug}/web?branch=`);
  await s.send(badge, `/v1/badge/${org.slug}/%ZZ`);
  await s.send(badge, `/v1/badge/${org.slug}/web`, {}, s.brokenApi);

  // Webhooks.
  const webhook = 'POST /v1/webhooks/{provider}';
  const now = Math.floor(s.clock.now().getTime() / 1000);
  const signedA = (payload: string, timestamp = now) => ({
    'provider-a-signature': signTimestampedPayload({
      payload,
      secret: PROVIDER_A_SECRET,
      timestamp,
    }),
  });
  const event = JSON.stringify({ id: 'evt_1', type: 'customer.subscription.updated', data: {} });
  await s.send(webhook, '/v1/webhooks/provider-a', jsonInit('POST', event, signedA(event)));
  await s.send(webhook, '/v1/webhooks/provider-a', jsonInit('POST', event, signedA(event)));
  const eventB = JSON.stringify({ event: 'subscription.charged', payload: {} });
  await s.send(
    webhook,
    '/v1/webhooks/provider-b',
    jsonInit('POST', eventB, {
      'x-provider-b-signature': signRawBodyPayload({ payload: eventB, secret: PROVIDER_B_SECRET }),
      'x-provider-b-event-id': 'evt_b_1',
    }),
  );
  const noId = JSON.stringify({ type: 'ping' });
  await s.send(webhook, '/v1/webhooks/provider-a', jsonInit('POST', noId, signedA(noId)));
  await s.send(webhook, '/v1/webhooks/provider-a', jsonInit('POST', '[1]', signedA('[1]')));
  await s.send(webhook, '/v1/webhooks/%ZZ', jsonInit('POST', event, signedA(event)));
  await s.send(webhook, '/v1/webhooks/provider-a', jsonInit('POST', event));
  await s.send(
    webhook,
    '/v1/webhooks/provider-a',
    jsonInit('POST', event, { 'provider-a-signature': `t=${now},v1=${'0'.repeat(64)}` }),
  );
  await s.send(
    webhook,
    '/v1/webhooks/provider-a',
    jsonInit('POST', event, signedA(event, now - 301)),
  );
  await s.send(webhook, '/v1/webhooks/provider-z', jsonInit('POST', event, signedA(event)));
  await s.send(
    webhook,
    '/v1/webhooks/provider-a',
    jsonInit('POST', TOO_LARGE, { 'provider-a-signature': `t=${now},v1=00` }),
  );
  await s.send(webhook, '/v1/webhooks/provider-a', {
    method: 'POST',
    headers: { ...signedA(event), 'content-type': 'text/plain' },
    body: event,
  });
  const exploding = JSON.stringify({ id: 'evt_2', type: 'explode' });
  await s.send(webhook, '/v1/webhooks/provider-a', jsonInit('POST', exploding, signedA(exploding)));
  await s.send(
    webhook,
    '/v1/webhooks/provider-a',
    jsonInit('POST', event, signedA(event)),
    s.brokenApi,
  );

  // OAuth login.
  const start = 'GET /auth/{code_host}';
  const callback = 'GET /auth/{code_host}/callback';
  const login = async () => {
    const started = await s.send(start, '/auth/github');
    const location = new URL(started.headers.get('location') ?? '');
    const stateCookie = (started.headers.get('set-cookie') ?? '').split(';', 1)[0] as string;
    return { state: location.searchParams.get('state') ?? '', headers: { cookie: stateCookie } };
  };
  const complete = async (query: (state: string) => string) => {
    const attempt = await login();
    return s.send(callback, `/auth/github/callback?${query(attempt.state)}`, {
      headers: attempt.headers,
    });
  };
  await complete((state) => `code=ok&state=${state}`);
  await complete((state) => `code=ok&state=${state}x`);
  await complete((state) => `error=access_denied&state=${state}`);
  await complete((state) => `error=redirect_uri_mismatch&state=${state}`);
  await complete((state) => `state=${state}`);
  await complete((state) => `code=refused&state=${state}`);
  await complete((state) => `code=failed&state=${state}`);
  await complete((state) => `code=unreachable&state=${state}`);
  await complete((state) => `code=slow&state=${state}`);
  await complete((state) => `code=unresolvable&state=${state}`);
  await s.send(callback, '/auth/github/callback?code=ok&state=forged');
  await s.send(callback, '/auth/%ZZ/callback?code=ok');
  await s.send(callback, '/auth/gitlab/callback?code=ok');
  await s.send(callback, '/auth/github/callback?code=ok', {}, s.brokenApi);
  await s.send(start, '/auth/%ZZ');
  await s.send(start, '/auth/gitlab');
  await s.send(start, '/auth/broken');
  await s.send(start, '/auth/github', {}, s.brokenApi);

  // Logout.
  const logout = 'DELETE /v1/sessions/{session_id}';
  const third = bodyOf<{ token: string; session_id: string }>(
    await s.send(
      create,
      '/v1/sessions/create',
      jsonInit('POST', { user_id: 'usr_3', org_id: org.id }, service),
    ),
  );
  await s.send(logout, `/v1/sessions/${otherSession.session_id}`, {
    method: 'DELETE',
    headers: asSession,
  });
  await s.send(logout, `/v1/sessions/${third.session_id}`, {
    method: 'DELETE',
    headers: { cookie: `covgate_session=${third.token}` },
  });
  await s.send(logout, `/v1/sessions/${third.session_id}`, {
    method: 'DELETE',
    headers: { cookie: `covgate_session=${third.token}`, origin: DASHBOARD_ORIGIN },
  });
  await s.send(logout, `/v1/sessions/${otherSession.session_id}`, {
    method: 'DELETE',
    headers: service,
  });
  await s.send(logout, `/v1/sessions/${otherSession.session_id}`, {
    method: 'DELETE',
    headers: service,
  });
  await s.send(logout, '/v1/sessions/%ZZ', { method: 'DELETE', headers: service });
  await s.send(logout, `/v1/sessions/${session.session_id}`, { method: 'DELETE' });
  await s.send(logout, `/v1/sessions/${session.session_id}`, {
    method: 'DELETE',
    headers: bearer(noExecute),
  });
  await s.send(logout, `/v1/sessions/${session.session_id}`, {
    method: 'DELETE',
    headers: asSession,
  });
  await s.send(
    logout,
    `/v1/sessions/${session.session_id}`,
    { method: 'DELETE', headers: service },
    s.brokenApi,
  );

  // Rate limiting: the enterprise limit is one request a minute, shared by every route.
  const asLimited = bearer(limitedToken);
  await s.send(list, `/v1/executions?org=${limited.slug}&repo=web`, { headers: asLimited });
  await s.send(list, `/v1/executions?org=${limited.slug}&repo=web`, { headers: asLimited });
  await s.send(ingest, '/v1/executions', jsonInit('POST', run(80), asLimited));
  await s.send(validate, '/v1/auth/validate', { method: 'POST', headers: asLimited });
  await s.send('GET /v1/tokens', '/v1/tokens', { headers: asLimited });
  await s.send(tokens, '/v1/tokens', jsonInit('POST', { name: 'x' }, asLimited));
  await s.send(one, path, { headers: asLimited });
  await s.send(patch, path, jsonInit('PATCH', { name: 'x' }, asLimited));
  await s.send(revoke, path, { method: 'DELETE', headers: asLimited });
  await s.send(rotate, `${path}/rotate`, { method: 'POST', headers: asLimited });
  await s.send(logout, `/v1/sessions/${third.session_id}`, {
    method: 'DELETE',
    headers: asLimited,
  });
}

// ---------------------------------------------------------------------------------------------

const operations = documentedOperations();
const routeKeys = coreRoutes({ webhooks: resolveWebhookOptions() }).map(
  (route) => `${route.method} ${route.pattern}`,
);

describe('docs/openapi.yaml as an OpenAPI 3.1 document', () => {
  it('declares OpenAPI 3.1 with a title, a version and a server', () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(typeof doc.info.title).toBe('string');
    expect(typeof doc.info.version).toBe('string');
    expect(doc.servers?.length).toBeGreaterThan(0);
  });

  it('documents every route of the core route table and nothing else', () => {
    expect([...operations.keys()].sort()).toEqual([...routeKeys].sort());
  });

  it('gives every operation a unique operationId, a summary, a tag, a security rule and responses', () => {
    const ids = new Set<string>();
    for (const [key, pointer] of operations) {
      const operation = resolved<OperationObject>(pointer);
      expect(operation.operationId, key).toMatch(/^[a-z][A-Za-z]+$/);
      expect(ids.has(operation.operationId as string), key).toBe(false);
      ids.add(operation.operationId as string);
      expect(operation.summary, key).toBeTruthy();
      expect(operation.tags?.length, key).toBeGreaterThan(0);
      expect(Array.isArray(operation.security), key).toBe(true);
      expect(Object.keys(operation.responses ?? {}).length, key).toBeGreaterThan(0);
    }
  });

  it('describes every response and keys it by a real status code', () => {
    for (const [key, pointer] of operations) {
      for (const status of Object.keys(resolved<OperationObject>(pointer).responses ?? {})) {
        expect(status, key).toMatch(/^[1-5][0-9]{2}$/);
        expect(
          resolved<ResponseObject>(`${pointer}/responses/${status}`).description,
          `${key} ${status}`,
        ).toBeTruthy();
      }
    }
  });

  it('declares each path template parameter as a required path parameter, and no other', () => {
    for (const [key, pointer] of operations) {
      const path = key.slice(key.indexOf(' ') + 1);
      const pathItem = pointer.slice(0, pointer.lastIndexOf('/'));
      const declared = [
        ...(resolved<PathItem>(pathItem).parameters ?? []).map(
          (_, i) => `${pathItem}/parameters/${i}`,
        ),
        ...(resolved<OperationObject>(pointer).parameters ?? []).map(
          (_, i) => `${pointer}/parameters/${i}`,
        ),
      ]
        .map((at) => resolved<ParameterObject>(at))
        .filter((parameter) => parameter.in === 'path');
      const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
      expect(declared.map((parameter) => parameter.name).sort(), key).toEqual(templated.sort());
      for (const parameter of declared)
        expect(parameter.required, `${key} ${parameter.name}`).toBe(true);
    }
  });

  it('resolves every $ref to a node of the document', () => {
    const refs = allRefs(doc);
    expect(refs.length).toBeGreaterThan(50);
    const broken = refs.filter(
      ({ ref }) => !ref.startsWith('#/') || nodeAt(ref.slice(1)) === undefined,
    );
    expect(broken).toEqual([]);
  });

  it('compiles every schema of the document in ajv strict mode', () => {
    for (const name of Object.keys(doc.components.schemas ?? {})) {
      expect(() => validatorAt(`/components/schemas/${escapePointer(name)}`), name).not.toThrow();
    }
    for (const pointer of responseSchemaPointers()) {
      expect(() => validatorAt(pointer), pointer).not.toThrow();
    }
  });

  it('closes every object of every response body, so an undocumented field fails', () => {
    const open = responseSchemaPointers().flatMap((pointer) => openObjects(pointer));
    expect(open).toEqual([]);
  });
});

describe('docs/openapi.yaml against a real API', () => {
  const scenario = new Scenario();
  beforeAll(async () => {
    await scenario.brokenStore.close();
    await runScenario(scenario);
  });

  it('labels every request with the operation the router picks for it', () => {
    expect(scenario.mislabelled).toEqual([]);
  });

  it.each([...operations.keys()])('%s: every response is documented and valid', (key) => {
    const pointer = operations.get(key) as string;
    const exchanges = scenario.exchanges.filter((exchange) => exchange.label === key);
    expect(exchanges.length).toBeGreaterThan(0);
    const problems = exchanges.flatMap((exchange) =>
      problemsWith(exchange, `${pointer}/responses/${exchange.status}`),
    );
    expect(problems).toEqual([]);
  });

  it.each([...operations.keys()])('%s: every documented status occurs', (key) => {
    const pointer = operations.get(key) as string;
    const documented = Object.keys(resolved<OperationObject>(pointer).responses ?? {});
    const seen = new Set(
      scenario.exchanges.filter((exchange) => exchange.label === key).map((e) => String(e.status)),
    );
    expect(documented.filter((status) => !seen.has(status))).toEqual([]);
  });

  it.each([...operations.keys()])(
    '%s: accepted requests match the documented request body',
    (key) => {
      const pointer = operations.get(key) as string;
      const body = resolved<OperationObject>(pointer).requestBody;
      const accepted = scenario.exchanges.filter(
        (exchange) =>
          exchange.label === key && exchange.status < 300 && exchange.requestBody !== undefined,
      );
      if (!body) {
        expect(accepted).toEqual([]);
        return;
      }
      const validate = validatorAt(
        `${locate(`${pointer}/requestBody`)}/content/application~1json/schema`,
      );
      for (const exchange of accepted) {
        expect(
          validate(exchange.requestBody),
          `${exchange.request}: ${ajv.errorsText(validate.errors)}`,
        ).toBe(true);
      }
    },
  );

  it.each(['NotFound', 'MethodNotAllowed', 'Preflight'])(
    'answers the cross-cutting %s exactly as the shared response documents',
    (name) => {
      const exchanges = scenario.exchanges.filter((exchange) => exchange.label === name);
      expect(exchanges.length).toBeGreaterThan(0);
      const problems = exchanges.flatMap((exchange) =>
        problemsWith(exchange, `/components/responses/${name}`),
      );
      expect(problems).toEqual([]);
    },
  );

  it('puts X-Request-ID and Vary: Origin on every response of the scenario', () => {
    const missing = scenario.exchanges.filter(
      (exchange) =>
        !exchange.headers.get('x-request-id') || exchange.headers.get('vary') !== 'Origin',
    );
    expect(missing.map((exchange) => exchange.request)).toEqual([]);
  });
});
