// A memory store holding one enterprise-plan organisation and one active `execute` token.
import { createMemoryStore, generateApiToken } from '@covgate/core';

/**
 * @param {string} slug - the organisation's slug and name, and the token's name
 * @param {{ hash(token: string): Promise<string> }} hasher - hashes the token as the API will verify it
 * @returns {Promise<{ store: import('@covgate/core').Store, org: object, token: string, tokenId: string }>}
 */
export async function storeWithToken(slug, hasher) {
  const store = createMemoryStore();
  const org = {
    id: `org_01j${slug.padEnd(23, '0')}`,
    slug,
    name: slug,
    plan: 'enterprise',
    createdAt: new Date(),
  };
  await store.createOrganisation(org);
  const { id, token } = generateApiToken();
  await store.insertToken({
    id,
    orgId: org.id,
    name: slug,
    scopes: ['execute'],
    agentType: '',
    hash: await hasher.hash(token),
    status: 'active',
    createdAt: new Date(),
    lastUsedAt: null,
    gracePeriodEndsAt: null,
  });
  return { store, org, token, tokenId: id };
}
