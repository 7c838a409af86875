import type { ServerResponse } from 'node:http';
import {
  exportJWK,
  generateKeyPair,
  type CryptoKey as JoseKey,
  type JWK,
  type JWTPayload,
  SignJWT,
} from 'jose';
import { listen, type RunningServer } from './http-server.js';

/** How the fake issuer answers its key-set requests. */
export type JwksBehaviour =
  | { kind: 'keys' }
  | { kind: 'huge'; bytes: number; declareLength: boolean }
  | { kind: 'slow'; delayMs: number }
  | { kind: 'status'; status: number };

interface SigningKey {
  kid: string;
  alg: 'RS256' | 'ES256';
  privateKey: JoseKey;
  publicJwk: JWK;
}

/**
 * An OIDC issuer on 127.0.0.1 for CI ID tokens: it publishes a key set (GitHub's path
 * `/.well-known/jwks` and GitLab's `/oauth/discovery/keys`), signs tokens with its keys, can
 * add a key (a rotation), mint a token under a key it does not publish, and answer its key
 * set hugely, slowly or with an error. Counts the key-set requests.
 */
export interface FakeOidcIssuer {
  /** `http://127.0.0.1:<port>`: the issuer URL and the `iss` of its tokens. */
  issuer: string;
  /** Key-set requests answered so far. */
  readonly jwksRequests: number;
  /** Signs `claims` (with `iss` and `iat`/`exp` defaults) under key `kid` (default the first). */
  sign(
    claims: JWTPayload,
    options?: { kid?: string; header?: Record<string, unknown> },
  ): Promise<string>;
  /** Makes a new key; published only once `publish` is true (a rotation). */
  addKey(options?: { alg?: 'RS256' | 'ES256'; publish?: boolean }): Promise<string>;
  /** Starts publishing a key made unpublished. */
  publish(kid: string): void;
  /** The public key of `kid` as a PEM-less JWK (for the HS256-with-public-key attack). */
  publicJwk(kid?: string): JWK;
  /** How key-set requests are answered from now on. */
  behave(behaviour: JwksBehaviour): void;
  close(): Promise<void>;
}

/** Starts a {@link FakeOidcIssuer} with one RS256 key, published. */
export async function startFakeOidcIssuer(): Promise<FakeOidcIssuer> {
  const keys: SigningKey[] = [];
  const published = new Set<string>();
  let behaviour: JwksBehaviour = { kind: 'keys' };
  let requests = 0;
  let counter = 0;
  const slowResponses = new Set<ServerResponse>();

  async function makeKey(alg: 'RS256' | 'ES256'): Promise<SigningKey> {
    const pair = await generateKeyPair(alg, { extractable: true });
    counter += 1;
    const kid = `key-${counter}`;
    const publicJwk = { ...(await exportJWK(pair.publicKey)), kid, alg, use: 'sig' };
    const key = { kid, alg, privateKey: pair.privateKey, publicJwk };
    keys.push(key);
    return key;
  }

  const first = await makeKey('RS256');
  published.add(first.kid);

  const server: RunningServer = await listen((request, response) => {
    const path = request.url ?? '';
    if (path !== '/.well-known/jwks' && path !== '/oauth/discovery/keys') {
      response.writeHead(404).end();
      return;
    }
    requests += 1;
    const current = behaviour;
    if (current.kind === 'status') {
      response.writeHead(current.status, { 'content-type': 'application/json' }).end('{}');
      return;
    }
    if (current.kind === 'slow') {
      slowResponses.add(response);
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"keys":');
      const timer = setTimeout(() => {
        slowResponses.delete(response);
        response.end('[]}');
      }, current.delayMs);
      response.on('close', () => clearTimeout(timer));
      return;
    }
    if (current.kind === 'huge') {
      const padding = 'x'.repeat(current.bytes);
      const body = `{"keys":[],"padding":"${padding}"}`;
      response.writeHead(200, {
        'content-type': 'application/json',
        ...(current.declareLength ? { 'content-length': String(Buffer.byteLength(body)) } : {}),
      });
      response.end(body);
      return;
    }
    const body = JSON.stringify({
      keys: keys.filter((key) => published.has(key.kid)).map((key) => key.publicJwk),
    });
    response.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });

  function keyOf(kid: string | undefined): SigningKey {
    const key = kid === undefined ? first : keys.find((candidate) => candidate.kid === kid);
    if (key === undefined) throw new Error(`fake issuer: no key ${kid}`);
    return key;
  }

  return {
    issuer: server.origin,
    get jwksRequests() {
      return requests;
    },
    async sign(claims, options = {}) {
      const key = keyOf(options.kid);
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ iss: server.origin, iat: now, exp: now + 300, ...claims })
        .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT', ...options.header })
        .sign(key.privateKey);
    },
    async addKey(options = {}) {
      const key = await makeKey(options.alg ?? 'RS256');
      if (options.publish !== false) published.add(key.kid);
      return key.kid;
    },
    publish(kid) {
      published.add(keyOf(kid).kid);
    },
    publicJwk(kid) {
      return keyOf(kid).publicJwk;
    },
    behave(next) {
      behaviour = next;
    },
    async close() {
      for (const response of slowResponses) response.destroy();
      await server.close();
    },
  };
}
