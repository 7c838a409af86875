import { ApiError, ERRORS } from './api-error.js';

/** Path parameters captured from `{name}` segments, already percent-decoded. */
export type PathParams = Record<string, string>;

/** A route of the table: a method, a path pattern such as `/v1/tokens/{id}`, a handler. */
export interface Route<H> {
  method: string;
  pattern: string;
  handler: H;
}

/** The outcome of matching a request against the route table. */
export type RouteMatch<H> =
  | { kind: 'found'; handler: H; params: PathParams }
  | { kind: 'method-not-allowed'; allow: string }
  | { kind: 'not-found' };

interface PatternRoute<H> extends Route<H> {
  segments: string[];
}

/** Shared by every match of a path without parameters; never written to. */
const NO_PARAMS: PathParams = Object.freeze({}) as PathParams;

function matchSegments(pattern: string[], actual: string[]): PathParams | null {
  if (pattern.length !== actual.length) return null;
  const params: PathParams = {};
  for (let i = 0; i < pattern.length; i++) {
    const expected = pattern[i] as string;
    const value = actual[i] as string;
    if (expected.startsWith('{') && expected.endsWith('}')) {
      if (value === '') return null;
      let decoded: string;
      try {
        decoded = decodeURIComponent(value);
      } catch {
        throw new ApiError(400, ERRORS.malformedRequest);
      }
      params[expected.slice(1, -1)] = decoded;
    } else if (expected !== value) {
      return null;
    }
  }
  return params;
}

/**
 * A small method + path router that knows the difference between 404 and 405. Paths
 * without parameters are found with one map lookup, and every answer a fixed path can
 * give is built when the router is: matching one allocates nothing.
 */
export class Router<H> {
  private readonly fixed = new Map<string, Map<string, RouteMatch<H>>>();
  private readonly routes: PatternRoute<H>[];

  constructor(routes: Route<H>[]) {
    this.routes = routes.map((route) => ({
      ...route,
      segments: route.pattern.split('/').slice(1),
    }));
    const patterns = this.routes.filter((route) => route.pattern.includes('{'));
    for (const route of this.routes) {
      if (route.pattern.includes('{')) continue;
      // A fixed path a pattern also matches (`/v1/sessions/create`) takes the full scan.
      if (patterns.some((p) => matchSegments(p.segments, route.segments) !== null)) continue;
      let byMethod = this.fixed.get(route.pattern);
      if (!byMethod) {
        byMethod = new Map();
        this.fixed.set(route.pattern, byMethod);
      }
      byMethod.set(route.method, { kind: 'found', handler: route.handler, params: NO_PARAMS });
    }
    for (const byMethod of this.fixed.values()) {
      const allow = allowOf(byMethod.keys());
      const get = byMethod.get('GET');
      if (get && !byMethod.has('HEAD')) byMethod.set('HEAD', get);
      byMethod.set('', { kind: 'method-not-allowed', allow });
    }
  }

  /** Matches a request; `HEAD` is served by `GET` routes. */
  match(method: string, path: string): RouteMatch<H> {
    const byMethod = this.fixed.get(path);
    if (byMethod) return byMethod.get(method) ?? (byMethod.get('') as RouteMatch<H>);
    const actual = path.split('/').slice(1);
    const allow = new Set<string>();
    for (const route of this.routes) {
      const params = matchSegments(route.segments, actual);
      if (params === null) continue;
      allow.add(route.method);
      if (route.method === method || (method === 'HEAD' && route.method === 'GET')) {
        return { kind: 'found', handler: route.handler, params };
      }
    }
    if (allow.size === 0) return { kind: 'not-found' };
    return { kind: 'method-not-allowed', allow: allowOf(allow) };
  }
}

function allowOf(methods: Iterable<string>): string {
  return [...methods, 'OPTIONS'].join(', ');
}
