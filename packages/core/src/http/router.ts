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
  | { kind: 'method-not-allowed'; allow: string[] }
  | { kind: 'not-found' };

interface CompiledRoute<H> extends Route<H> {
  segments: string[];
}

function splitPath(path: string): string[] {
  return path.split('/').slice(1);
}

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

/** A small method + path router that knows the difference between 404 and 405. */
export class Router<H> {
  private readonly routes: CompiledRoute<H>[];

  constructor(routes: Route<H>[]) {
    this.routes = routes.map((route) => ({ ...route, segments: splitPath(route.pattern) }));
  }

  /** Matches a request; `HEAD` is served by `GET` routes. */
  match(method: string, path: string): RouteMatch<H> {
    const actual = splitPath(path);
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
    return { kind: 'method-not-allowed', allow: [...allow, 'OPTIONS'] };
  }

  /** Methods allowed on a path (for preflight answers); empty for an unknown path. */
  allowedMethods(path: string): string[] {
    const actual = splitPath(path);
    const allow = new Set<string>();
    for (const route of this.routes) {
      if (matchSegments(route.segments, actual) !== null) allow.add(route.method);
    }
    return [...allow];
  }
}
