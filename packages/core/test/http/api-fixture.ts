import { buildOrganisation, createTestApi, type TestApiOptions } from '@covgate/testing';

/**
 * A test API with one enterprise organisation, and a GET with an optional bearer token;
 * `listPath` is a read any of the organisation's tokens may make (its runs of `r`).
 */
export async function apiFixture(overrides: TestApiOptions = {}) {
  const t = createTestApi(overrides);
  const org = buildOrganisation({ plan: 'enterprise' });
  await t.store.createOrganisation(org);

  async function insertToken() {
    const { id, secret } = await t.insertToken(org, { name: 'fixture' });
    return { id, token: secret };
  }

  function get(path: string, token?: string, remoteAddress?: string) {
    const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
    return t.request(path, { headers }, remoteAddress);
  }

  const listPath = `/v1/executions?org=${org.slug}&repo=r`;
  return { ...t, org, insertToken, get, listPath, logLines: t.logs.rawLines };
}
