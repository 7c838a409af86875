import { createApi, createMemoryStore, createTokenHasher } from '@covgate/core';
import { buildOrganisation, captureLogs, issueTestToken } from '@covgate/testing';

const hasher = createTokenHasher({ memoryCost: 1024, timeCost: 1 });

/** An in-process covgate service and a token of its organisation. */
export async function service() {
  const store = createMemoryStore();
  const org = buildOrganisation();
  await store.createOrganisation(org);
  const api = createApi({
    store,
    sessionSecret: 's'.repeat(48),
    tokenHasher: hasher,
    logger: captureLogs().logger,
  });
  const { token } = await issueTestToken(store, { orgId: org.id, hasher });
  const sent: Record<string, unknown>[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const request = new Request(input, init);
    if (request.method === 'POST')
      sent.push((await request.clone().json()) as Record<string, unknown>);
    return api.handle(request, { remoteAddress: '127.0.0.1' });
  };
  /** Links `repo` to a GitHub repository, as `PUT /v1/repos/github-link` would. */
  const link = async (repo: string, repository: string) => {
    const now = new Date();
    await store.putRepositoryLink({
      orgId: org.id,
      repo,
      host: 'github',
      repository,
      apiUrl: 'https://api.github.com',
      credential: 'sealed',
      credentialHint: '…cdef',
      createdBy: 'usr_cli_test',
      createdAt: now,
      updatedAt: now,
    });
  };
  return { token, fetch, sent, store, org, link };
}
