// Provisioning from code, without the service token: an organisation, a session for its first
// user and an API token for its CI, then one run posted with that token.
import {
  createApi,
  createMemoryStore,
  createOrganisation,
  createSession,
  createToken,
} from '@covgate/core';

const sessionSecret = process.env.SESSION_SECRET;
if (!sessionSecret) throw new Error('set SESSION_SECRET');

const store = createMemoryStore(); // @covgate/sqlite or @covgate/mysql to keep data
const api = createApi({ store, sessionSecret });

const org = await createOrganisation(store, { slug: 'acme', name: 'Acme' });
// The first user of an organisation joins it as its owner.
const session = await createSession(api, { org: 'acme', userId: 'alice' });
const token = await createToken(api, { org: org.id, name: 'ci' });

const response = await api.handle(
  new Request('http://localhost/v1/executions', {
    method: 'POST',
    headers: { authorization: `Bearer ${token.secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ repo: 'web', branch: 'main', coverage: 84.13 }),
  }),
);
console.log(JSON.stringify({ role: session.role, status: response.status }));
