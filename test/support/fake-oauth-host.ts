import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An account of the fake code host. */
export interface FakeAccount {
  id: number;
  /** GitLab's `username`, Gitea's `login`. */
  login: string;
}

/** The OAuth application and the account the fake knows. */
export interface FakeOAuthHostOptions {
  clientId: string;
  clientSecret: string;
  account: FakeAccount;
}

/** An answer the fake gives instead of the real one. */
export interface FakeOAuthAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/**
 * A local GitLab or Gitea (Forgejo) over real HTTP, as far as a sign-in goes, answering as the
 * host documents:
 * - the authorize endpoint redirects back to `redirect_uri` with a code bound to the S256
 *   challenge and the redirect URI, and the `state` unchanged;
 * - the token endpoint checks the client (HTTP Basic or form fields), that the code is known,
 *   unused and for that redirect URI, and that the verifier hashes to the challenge, and
 *   refuses as the host does (GitLab: `400 {"error":"invalid_grant"}`, `401
 *   {"error":"invalid_client"}`; Gitea: `400 {"error":"unauthorized_client"}` with the
 *   description telling an unknown code, a failed PKCE challenge and a wrong secret apart);
 * - the user endpoint answers the account of a token it issued (GitLab `{id, username}`,
 *   Gitea `{id, login}`), `401` for any other;
 * - the account's organisations, page by page: GitLab `GET /api/v4/groups` (`page`,
 *   `per_page` at most 100, default 20; `x-page`, `x-per-page`, `x-next-page`,
 *   `x-total`, `x-total-pages` and `Link` headers; only the member's groups with
 *   `min_access_level`, else public groups too) with a token granted `read_api` or `api`,
 *   else `403 {"error":"insufficient_scope"}`; Gitea `GET /api/v1/user/orgs` (`page`,
 *   `limit` at most the instance's `MAX_RESPONSE_ITEMS`, 50 unless set; `Link` and
 *   `x-total-count` headers) with a token granted `read:organization`, else `403` naming
 *   the scope.
 */
export interface FakeOAuthHost {
  /** The instance's address: `GITLAB_URL` or `GITEA_URL`. */
  baseUrl: string;
  /** `METHOD path` of each request received, in order. */
  requests: string[];
  /** Every access token issued, so a test can check that none leaks. */
  accessTokens: Set<string>;
  /** The account the next authorization signs in (the person signed in to the host). */
  signInAs(account: FakeAccount): void;
  /** Makes the user endpoint answer `answer` (an outage, a malformed account); null: the account. */
  answerUserWith(answer: FakeOAuthAnswer | null): void;
  /** The organisations (GitLab: groups, by full path) the account of `login` belongs to. */
  setOrganisations(login: string, paths: readonly string[]): void;
  /**
   * Makes the organisations endpoint answer `answer` from page `fromPage` on (a refusal, a
   * rate limit, an outage part way); null: the list.
   */
  answerOrganisationsWith(answer: FakeOAuthAnswer | null, fromPage?: number): void;
  /** `page` and page size of each organisations request, in order. */
  organisationPages: { page: string | null; size: string | null }[];
  close(): Promise<void>;
}

interface Dialect {
  authorizePath: string;
  tokenPath: string;
  userPath: string;
  userBody(account: FakeAccount): Record<string, unknown>;
  organisations: {
    path: string;
    /** The page size's query parameter, its default and its ceiling. */
    sizeParameter: string;
    defaultSize: number;
    maxSize: number;
    /** Whether a request lists only the member's organisations. */
    membersOnly(params: URLSearchParams): boolean;
    /** Scopes that allow the request (GitLab `read_api`, Gitea `read:organization`). */
    scopes: string[];
    entry(path: string, id: number): Record<string, unknown>;
    /** Headers besides `Link` for a page. */
    pageHeaders(page: number, size: number, total: number): Record<string, string>;
    insufficientScope(origin: string, granted: string): FakeOAuthAnswer;
  };
  badClient(origin: string): FakeOAuthAnswer;
  unknownCode(origin: string): FakeOAuthAnswer;
  failedPkce(origin: string): FakeOAuthAnswer;
  unauthenticated(origin: string): FakeOAuthAnswer;
}

const GITLAB_REFUSED_GRANT = {
  status: 400,
  body: {
    error: 'invalid_grant',
    error_description:
      'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.',
  },
};

const GITLAB: Dialect = {
  authorizePath: '/oauth/authorize',
  tokenPath: '/oauth/token',
  userPath: '/api/v4/user',
  userBody: (account) => ({
    id: account.id,
    username: account.login,
    name: account.login,
    state: 'active',
  }),
  badClient: () => ({
    status: 401,
    body: {
      error: 'invalid_client',
      error_description:
        'Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.',
    },
  }),
  unknownCode: () => GITLAB_REFUSED_GRANT,
  failedPkce: () => GITLAB_REFUSED_GRANT,
  unauthenticated: () => ({ status: 401, body: { message: '401 Unauthorized' } }),
  organisations: {
    path: '/api/v4/groups',
    sizeParameter: 'per_page',
    defaultSize: 20,
    maxSize: 100,
    membersOnly: (params) => params.has('min_access_level'),
    scopes: ['read_api', 'api'],
    entry: (path, id) => ({
      id,
      name: path.split('/').at(-1),
      path: path.split('/').at(-1),
      full_name: path.split('/').join(' / '),
      full_path: path,
      visibility: 'private',
    }),
    pageHeaders: (page, size, total) => {
      const pages = Math.max(1, Math.ceil(total / size));
      return {
        'x-page': String(page),
        'x-per-page': String(size),
        'x-next-page': page < pages ? String(page + 1) : '',
        'x-prev-page': page > 1 ? String(page - 1) : '',
        'x-total': String(total),
        'x-total-pages': String(pages),
      };
    },
    insufficientScope: () => ({
      status: 403,
      headers: {
        'www-authenticate':
          'Bearer realm="Protected by OAuth 2.0", error="insufficient_scope", scope="api read_api"',
      },
      body: {
        error: 'insufficient_scope',
        error_description:
          'The request requires higher privileges than provided by the access token.',
        scope: 'api read_api',
      },
    }),
  },
};

/** Public groups every GitLab request without `min_access_level` lists besides the member's. */
const GITLAB_PUBLIC_GROUPS = ['gitlab-org', 'gnome'];

const GITEA: Dialect = {
  authorizePath: '/login/oauth/authorize',
  tokenPath: '/login/oauth/access_token',
  userPath: '/api/v1/user',
  userBody: (account) => ({ id: account.id, login: account.login, full_name: account.login }),
  badClient: () => ({
    status: 400,
    body: { error: 'unauthorized_client', error_description: 'invalid client secret' },
  }),
  unknownCode: () => ({
    status: 400,
    body: { error: 'unauthorized_client', error_description: 'client is not authorized' },
  }),
  failedPkce: () => ({
    status: 400,
    body: { error: 'unauthorized_client', error_description: 'failed PKCE code challenge' },
  }),
  unauthenticated: (origin) => ({
    status: 401,
    body: { message: 'user does not exist [uid: 0, name: ]', url: `${origin}/api/swagger` },
  }),
  organisations: {
    path: '/api/v1/user/orgs',
    sizeParameter: 'limit',
    defaultSize: 30,
    maxSize: 50,
    membersOnly: () => true,
    scopes: ['read:organization', 'write:organization'],
    entry: (path, id) => ({
      id,
      name: path,
      full_name: path,
      email: '',
      avatar_url: '',
      description: '',
      website: '',
      location: '',
      visibility: 'public',
      repo_admin_change_team_access: false,
      username: path,
    }),
    pageHeaders: (_page, _size, total) => ({ 'x-total-count': String(total) }),
    insufficientScope: (origin, granted) => ({
      status: 403,
      body: {
        message: `token does not have at least one of required scope(s), required=[read:organization], token scope=${granted}`,
        url: `${origin}/api/swagger`,
      },
    }),
  },
};

/** Starts a fake GitLab (gitlab.com or self-managed) on a free port of 127.0.0.1. */
export function startFakeGitlab(options: FakeOAuthHostOptions): Promise<FakeOAuthHost> {
  return startFakeOAuthHost(GITLAB, options);
}

/** Starts a fake Gitea (or Forgejo) on a free port of 127.0.0.1. */
export function startFakeGitea(options: FakeOAuthHostOptions): Promise<FakeOAuthHost> {
  return startFakeOAuthHost(GITEA, options);
}

interface IssuedCode {
  challenge: string;
  redirectUri: string;
  used: boolean;
  account: FakeAccount;
  scope: string;
}

interface Grant {
  account: FakeAccount;
  scope: string;
}

async function startFakeOAuthHost(
  dialect: Dialect,
  options: FakeOAuthHostOptions,
): Promise<FakeOAuthHost> {
  const codes = new Map<string, IssuedCode>();
  const accessTokens = new Set<string>();
  const grants = new Map<string, Grant>();
  const requests: string[] = [];
  const memberships = new Map<string, readonly string[]>();
  const organisationPages: { page: string | null; size: string | null }[] = [];
  let account = options.account;
  let userAnswer: FakeOAuthAnswer | null = null;
  let organisationsAnswer: { answer: FakeOAuthAnswer; fromPage: number } | null = null;
  let origin = '';

  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://fake-host');
    requests.push(`${request.method} ${url.pathname}`);
    if (request.method === 'GET' && url.pathname === dialect.authorizePath) {
      authorize(url.searchParams, response);
    } else if (request.method === 'POST' && url.pathname === dialect.tokenPath) {
      exchange(request, response).catch(() => json(response, 500, { message: 'fake failed' }));
    } else if (request.method === 'GET' && url.pathname === dialect.userPath) {
      const grant = grantOf(request);
      if (!grant) send(response, dialect.unauthenticated(origin));
      else send(response, userAnswer ?? { status: 200, body: dialect.userBody(grant.account) });
    } else if (request.method === 'GET' && url.pathname === dialect.organisations.path) {
      listOrganisations(request, url, response);
    } else {
      json(response, 404, { message: '404 Not Found' });
    }
  });

  function authorize(params: URLSearchParams, response: ServerResponse): void {
    const redirectUri = params.get('redirect_uri') ?? '';
    const challenge = params.get('code_challenge') ?? '';
    if (
      params.get('client_id') !== options.clientId ||
      params.get('response_type') !== 'code' ||
      params.get('code_challenge_method') !== 'S256' ||
      !/^[A-Za-z0-9_-]{43}$/.test(challenge) ||
      !params.get('state') ||
      !URL.canParse(redirectUri)
    ) {
      json(response, 400, { error: 'invalid_request' });
      return;
    }
    const code = randomBytes(16).toString('hex');
    const scope = params.get('scope') ?? '';
    codes.set(code, { challenge, redirectUri, used: false, account, scope });
    const back = new URL(redirectUri);
    back.searchParams.set('code', code);
    back.searchParams.set('state', params.get('state') as string);
    response.writeHead(302, { location: back.toString() }).end();
  }

  async function exchange(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const form = new URLSearchParams(await readBody(request));
    const [basicId, basicSecret] = basicCredentials(request.headers.authorization);
    const id = basicId || form.get('client_id');
    const secret = basicSecret || form.get('client_secret');
    if (id !== options.clientId || secret !== options.clientSecret) {
      send(response, dialect.badClient(origin));
      return;
    }
    const issued = codes.get(form.get('code') ?? '');
    if (
      form.get('grant_type') !== 'authorization_code' ||
      !issued ||
      issued.used ||
      issued.redirectUri !== form.get('redirect_uri')
    ) {
      send(response, dialect.unknownCode(origin));
      return;
    }
    const verifier = form.get('code_verifier') ?? '';
    if (createHash('sha256').update(verifier).digest('base64url') !== issued.challenge) {
      send(response, dialect.failedPkce(origin));
      return;
    }
    issued.used = true;
    const accessToken = randomBytes(20).toString('hex');
    accessTokens.add(accessToken);
    grants.set(accessToken, { account: issued.account, scope: issued.scope });
    json(response, 200, {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: 7200,
      refresh_token: randomBytes(20).toString('hex'),
    });
  }

  function listOrganisations(request: IncomingMessage, url: URL, response: ServerResponse): void {
    const rules = dialect.organisations;
    const params = url.searchParams;
    organisationPages.push({ page: params.get('page'), size: params.get(rules.sizeParameter) });
    const grant = grantOf(request);
    if (!grant) {
      send(response, dialect.unauthenticated(origin));
      return;
    }
    const granted = grant.scope.split(' ');
    if (!rules.scopes.some((scope) => granted.includes(scope))) {
      send(response, rules.insufficientScope(origin, grant.scope));
      return;
    }
    const page = Math.max(1, Number.parseInt(params.get('page') ?? '1', 10) || 1);
    if (organisationsAnswer && page >= organisationsAnswer.fromPage) {
      send(response, organisationsAnswer.answer);
      return;
    }
    const asked = Number.parseInt(params.get(rules.sizeParameter) ?? '', 10);
    const size = Math.min(rules.maxSize, asked > 0 ? asked : rules.defaultSize);
    const own = memberships.get(grant.account.login) ?? [];
    const all = rules.membersOnly(params) ? own : [...GITLAB_PUBLIC_GROUPS, ...own];
    const pages = Math.max(1, Math.ceil(all.length / size));
    const link = (n: number, rel: string) => {
      const to = new URL(`${origin}${url.pathname}${url.search}`);
      to.searchParams.set('page', String(n));
      return `<${to}>; rel="${rel}"`;
    };
    const links = [
      ...(page < pages ? [link(page + 1, 'next')] : []),
      ...(page > 1 ? [link(page - 1, 'prev')] : []),
      link(1, 'first'),
      link(pages, 'last'),
    ];
    send(response, {
      status: 200,
      headers: { ...rules.pageHeaders(page, size, all.length), link: links.join(', ') },
      body: all
        .slice((page - 1) * size, page * size)
        .map((path, i) => rules.entry(path, 1000 + (page - 1) * size + i)),
    });
  }

  function grantOf(request: IncomingMessage): Grant | undefined {
    const token = /^(?:Bearer|token) (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    return token === undefined ? undefined : grants.get(token);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl: origin,
    requests,
    accessTokens,
    signInAs: (next) => {
      account = next;
    },
    answerUserWith: (answer) => {
      userAnswer = answer;
    },
    setOrganisations: (login, paths) => {
      memberships.set(login, paths);
    },
    answerOrganisationsWith: (answer, fromPage = 1) => {
      organisationsAnswer = answer === null ? null : { answer, fromPage };
    },
    organisationPages,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function send(response: ServerResponse, answer: FakeOAuthAnswer): void {
  if (typeof answer.body === 'string') {
    response
      .writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers })
      .end(answer.body);
    return;
  }
  response
    .writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers })
    .end(JSON.stringify(answer.body));
}

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function basicCredentials(header: string | undefined): [string, string] {
  const encoded = /^Basic (.+)$/.exec(header ?? '')?.[1];
  if (!encoded) return ['', ''];
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? ['', ''] : [decoded.slice(0, colon), decoded.slice(colon + 1)];
}
