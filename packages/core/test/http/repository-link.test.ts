import {
  buildExecution,
  createTestApi,
  newPrefixedId,
  TEST_SESSION_SECRET,
} from '@covgate/testing';
import { describe, expect, it } from 'vitest';
import {
  decryptCredential,
  decryptRepositoryLinkCredential,
  repositoryLinkCredentialContext,
} from '../../src/repository-links/credential-encryption.js';

const TOKEN = 'github_pat_11AAAAAAA0unitTokenValue_4321abcd';

async function linkedRepository(options: Parameters<typeof createTestApi>[0] = {}) {
  const t = createTestApi(options);
  const org = await t.createOrganisation('team');
  const { token: session } = await t.createSession(org, 'usr_admin');
  const send = (method: string, body?: unknown) =>
    t.request(`/v1/repos/github-link?org=${org.slug}&repo=web`, {
      method,
      headers: {
        authorization: `Bearer ${session}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const linked = await send('POST', { github_repo: 'acme/web', token: TOKEN });
  expect(linked.status).toBe(200);
  return { t, org, send };
}

describe('a repository link', () => {
  it("lists the repository's latest failed deliveries, newest first, with GitHub's reason and status", async () => {
    const { t, org, send } = await linkedRepository();
    const run = buildExecution({ orgId: org.id, repo: 'web', createdAt: t.clock.now() });
    const ids = [newPrefixedId('dlv_'), newPrefixedId('dlv_'), newPrefixedId('dlv_')];
    await t.store.insertExecution(run, null, [
      { id: ids[0] as string, kind: 'status_project', payload: '{}' },
      { id: ids[1] as string, kind: 'comment', payload: '{}' },
      { id: ids[2] as string, kind: 'status_patch', payload: '{}' },
    ]);
    const claimed = await t.store.claimDeliveries('sender', t.clock.now(), 60_000, 10);
    expect(claimed.map((delivery) => delivery.id).sort()).toEqual([...ids].sort());
    const at = (seconds: number) => new Date(t.clock.now().getTime() + seconds * 1000);
    await t.store.failDelivery(ids[0] as string, 'sender', {
      at: at(5),
      error: 'GitHub refused the token (401 Bad credentials)',
      status: 401,
    });
    await t.store.failDelivery(ids[1] as string, 'sender', {
      at: at(9),
      error: 'GitHub does not know the repository acme/web, or the token cannot see it (404)',
      status: 404,
    });
    // Still being retried: not a failure yet.
    await t.store.retryDelivery(ids[2] as string, 'sender', {
      at: at(7),
      error: 'GitHub answered 502',
      status: 502,
      nextAttemptAt: at(60),
    });

    const read = await send('GET');
    const body = (await read.json()) as { failures: unknown[] };
    expect(read.status).toBe(200);
    expect(body.failures).toEqual([
      {
        kind: 'comment',
        execution_id: run.id,
        reason: 'GitHub does not know the repository acme/web, or the token cannot see it (404)',
        status: 404,
        failed_at: '2026-03-01T12:00:09Z',
      },
      {
        kind: 'status_project',
        execution_id: run.id,
        reason: 'GitHub refused the token (401 Bad credentials)',
        status: 401,
        failed_at: '2026-03-01T12:00:05Z',
      },
    ]);
  });

  it("shows none of the previous link's failures once linked to another host, and keeps a token change's", async () => {
    const { t, org, send } = await linkedRepository();
    const run = buildExecution({ orgId: org.id, repo: 'web', createdAt: t.clock.now() });
    const [refused, pending] = [newPrefixedId('dlv_'), newPrefixedId('dlv_')];
    await t.store.insertExecution(run, null, [
      { id: refused, kind: 'status_project', payload: '{}' },
      { id: pending, kind: 'comment', payload: '{}' },
    ]);
    await t.store.claimDeliveries('sender', t.clock.now(), 60_000, 10);
    const failAt = (id: string, error: string) =>
      t.store.failDelivery(id, 'sender', { at: t.clock.now(), error, status: 401 });
    t.clock.advance(5_000);
    await failAt(refused, 'GitHub refused the token (401 Bad credentials)');
    const before = (await (await send('GET')).json()) as { failures: { reason: string }[] };
    expect(before.failures.map((failure) => failure.reason)).toEqual([
      'GitHub refused the token (401 Bad credentials)',
    ]);

    t.clock.advance(60_000);
    const { token: other } = await t.createSession(org, 'usr_other_admin', 'admin');
    const relink = await t.request(`/v1/repos/code-host-link?org=${org.slug}&repo=web`, {
      method: 'POST',
      headers: { authorization: `Bearer ${other}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        host: 'gitlab',
        repository: 'acme/web',
        token: 'glpat-relinked-0001',
      }),
    });
    expect(relink.status).toBe(200);
    expect(await relink.json()).toEqual({
      repo: 'web',
      host: 'gitlab',
      repository: 'acme/web',
      api_url: 'https://gitlab.com/api/v4',
      token_hint: '…0001',
      created_by: 'usr_other_admin',
      created_at: '2026-03-01T12:01:05Z',
      updated_at: '2026-03-01T12:01:05Z',
      failures: [],
    });

    // A delivery of the previous link given up after the re-link is the new link's news.
    t.clock.advance(1_000);
    await failAt(pending, 'the repository is now linked to GitLab acme/web, not GitHub acme/web');
    t.clock.advance(1_000);
    const sameHost = await t.request(`/v1/repos/code-host-link?org=${org.slug}&repo=web`, {
      method: 'POST',
      headers: { authorization: `Bearer ${other}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        host: 'gitlab',
        repository: 'acme/web',
        token: 'glpat-replaced-0002',
      }),
    });
    expect(await sameHost.json()).toMatchObject({
      token_hint: '…0002',
      created_by: 'usr_other_admin',
      created_at: '2026-03-01T12:01:05Z',
      updated_at: '2026-03-01T12:01:07Z',
      failures: [
        {
          kind: 'comment',
          execution_id: run.id,
          reason: 'the repository is now linked to GitLab acme/web, not GitHub acme/web',
          status: 401,
          failed_at: '2026-03-01T12:01:06Z',
        },
      ],
    });
  });

  it('seals the token under the current session secret, which opens nothing sealed for another repository', async () => {
    const { t, org } = await linkedRepository();
    const stored = await t.store.findRepositoryLink(org.id, 'web');
    const sealed = stored?.credential as string;
    expect(
      decryptRepositoryLinkCredential(
        { orgId: org.id, repo: 'web', credential: sealed },
        { sessionSecret: 'another-secret-now', previousSessionSecret: TEST_SESSION_SECRET },
      ),
    ).toEqual({ plaintext: TOKEN, underPreviousSecret: true });
    expect(
      decryptCredential(sealed, repositoryLinkCredentialContext(org.id, 'web'), {
        sessionSecret: TEST_SESSION_SECRET,
      }),
    ).toEqual({ plaintext: TOKEN, underPreviousSecret: false });
    expect(() =>
      decryptCredential(sealed, repositoryLinkCredentialContext(org.id, 'api'), {
        sessionSecret: TEST_SESSION_SECRET,
      }),
    ).toThrow('the stored credential cannot be decrypted');
  });

  it('answers 500 {"error":"internal error"} without the token when the store fails to save it', async () => {
    const { t, send } = await linkedRepository();
    t.store.putRepositoryLink = async () => {
      throw new Error(`disk full while writing ${TOKEN.slice(0, 4)}`);
    };
    const failed = await send('POST', { github_repo: 'acme/web', token: TOKEN });
    expect([failed.status, await failed.json()]).toEqual([500, { error: 'internal error' }]);
    expect(t.logs.rawLines.join('\n')).not.toContain(TOKEN);
    expect(t.audit.lines.filter((line) => line.includes('repository.link'))).toHaveLength(1);
  });
});
