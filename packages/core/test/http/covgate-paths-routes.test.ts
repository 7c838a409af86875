import { describe, expect, it } from 'vitest';
import { COVGATE_PATHS, isCovgatePath } from '../../src/http/covgate-paths.js';
import { coreRoutes } from '../../src/http/routes/route-table.js';
import { resolveWebhookOptions } from '../../src/webhooks/webhook-options.js';

// Express and Hapi claim only COVGATE_PATHS; the router answers the route table. The two lists
// are tied here so a new route that the adapters would hand to the host application (or a
// claimed path no route stands behind) fails this test instead of a user's request.

/** Every route pattern of the table, with and without OAuth configured, parameters filled in. */
function routePaths(): string[] {
  const webhooks = resolveWebhookOptions();
  const patterns = new Set<string>();
  for (const route of coreRoutes({ webhooks })) patterns.add(route.pattern);
  return [...patterns].map((pattern) => pattern.replaceAll(/\{[^}]+\}/g, 'x'));
}

describe('COVGATE_PATHS and the route table', () => {
  const paths = routePaths();

  it('has routes to check', () => {
    expect(paths).toContain('/v1/executions');
    expect(paths).toContain('/auth/x/callback');
  });

  it.each(paths)('the adapters hand %s to covgate', (path) => {
    expect(isCovgatePath(path)).toBe(true);
  });

  it.each(COVGATE_PATHS.exact.map((path) => [path]))('exact path %s is a route', (path) => {
    expect(paths).toContain(path);
  });

  it.each(COVGATE_PATHS.trees.map((tree) => [tree]))('tree %s has routes under it', (tree) => {
    expect(paths.some((path) => path.startsWith(`${tree}/`))).toBe(true);
  });

  it('claims no exact path that a tree already covers, and no tree twice', () => {
    const trees: readonly string[] = COVGATE_PATHS.trees;
    expect(new Set(trees).size).toBe(trees.length);
    for (const path of COVGATE_PATHS.exact) {
      expect(trees.some((tree) => path === tree || path.startsWith(`${tree}/`))).toBe(false);
    }
  });
});
