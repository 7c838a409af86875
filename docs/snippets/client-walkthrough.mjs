// From an empty store to a listed execution with @covgate/client:
// organisation -> session -> API token -> one run -> the list -> a refused call.
// Needs: COVGATE_URL (the server), SERVICE_TOKEN (the server's service token).
import { CovgateApiError, createCovgateClient } from '@covgate/client';

const baseUrl = process.env.COVGATE_URL ?? 'http://localhost:8080';

// 1. The service token creates the organisation and a session in it.
const service = createCovgateClient({ baseUrl, token: process.env.SERVICE_TOKEN });
const org = await service.createOrganisation({ body: { slug: 'acme', name: 'Acme' } });
const session = await service.createSession({ body: { user_id: 'usr_me', org_id: org.id } });
console.log(`organisation ${org.slug} (${org.id}), session ${session.session_id}`);

// 2. The session creates an API token with the execute scope; its secret is shown only here.
const people = createCovgateClient({ baseUrl, token: session.token });
const token = await people.createToken({ body: { name: 'ci' } });
console.log(`token ${token.name} (${token.id}): ${token.scopes.join(', ')}`);

// 3. CI records a run with the API token; the gate is evaluated server-side.
const ci = createCovgateClient({ baseUrl, token: token.secret });
const run = await ci.createExecution({ body: { repo: 'web', branch: 'main', coverage: 84.13 } });
console.log(
  `recorded ${run.id}: ${run.outcome} ${run.repo}@${run.branch} ${run.coverage}% (delta ${run.delta})`,
);

// 4. The repository's runs, newest first, page by page: `cursor: ''` asks for `next_cursor`.
let cursor = '';
for (;;) {
  const page = await ci.listExecutions({ org: 'acme', repo: 'web', limit: 20, cursor });
  for (const execution of page.executions) {
    console.log(`listed ${execution.id} ${execution.outcome} ${execution.coverage}%`);
  }
  if (!page.next_cursor) break; // null on the last page
  cursor = page.next_cursor;
}

// 5. A refused call throws CovgateApiError: here the token's organisation is not globex.
try {
  await ci.listExecutions({ org: 'globex', repo: 'web' });
} catch (error) {
  if (!(error instanceof CovgateApiError)) throw error;
  console.log(`refused: ${error.status} ${error.error}`); // refused: 403 forbidden
}
