import type { Store } from '@covgate/core';
import { createTestApi, newPrefixedId, TEST_START } from '@covgate/testing';
import { describe, expect, it } from 'vitest';

const SHA = 'a'.repeat(40);

async function givenApi(options: { linked: boolean; store?: Store }) {
  const nudges: number[] = [];
  const test = createTestApi({
    outbox: { nudge: () => nudges.push(1) },
    dashboardUrl: 'https://covgate.example.com/dashboard/',
    ...(options.store ? { store: options.store } : {}),
  });
  const org = await test.createOrganisation();
  const { secret } = await test.insertToken(org);
  if (options.linked) {
    await test.store.putRepositoryLink({
      orgId: org.id,
      repo: 'web',
      host: 'github',
      repository: 'octo/widgets',
      apiUrl: 'https://api.github.com',
      credential: 'v1.sealed',
      credentialHint: '…abcd',
      createdBy: newPrefixedId('usr_'),
      createdAt: TEST_START,
      updatedAt: TEST_START,
    });
  }
  const ingest = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    test.request('/v1/executions', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${secret}`,
        'content-type': 'application/json',
        ...headers,
      },
      body: JSON.stringify({
        repo: 'web',
        branch: 'feature',
        coverage: 84.13,
        base_branch: 'main',
        ...body,
      }),
    });
  return { test, org, ingest, nudges };
}

describe('ingest enqueues the feedback of a linked repository', () => {
  it('stores the statuses and the comment with the run, linking the run page, and nudges the worker', async () => {
    const { test, org, ingest, nudges } = await givenApi({ linked: true });

    const response = await ingest({
      commit: SHA,
      pull_request: 12,
      patch: { covered: 9, coverable: 10 },
    });

    expect(response.status).toBe(201);
    const { id } = (await response.json()) as { id: string };
    const deliveries = await test.store.listRunDeliveries(org.id, id);
    expect(deliveries.map((each) => [each.kind, each.state, each.attempts])).toEqual([
      ['status_project', 'pending', 0],
      ['status_patch', 'pending', 0],
      ['comment', 'pending', 0],
    ]);
    expect(deliveries.every((each) => /^dlv_[0-9a-z]{26}$/.test(each.id))).toBe(true);
    const project = JSON.parse(deliveries[0]?.payload ?? '');
    expect(project).toEqual({
      github_repo: 'octo/widgets',
      sha: SHA,
      context: 'covgate/project',
      target_url: `https://covgate.example.com/dashboard/repos/web/runs/${id}`,
      state: 'success',
      description: '84.13% (no baseline) pass',
    });
    expect(deliveries.map((each) => each.payload).join('')).not.toContain('v1.sealed');
    expect(nudges).toHaveLength(1);
  });

  it('enqueues once for an idempotent ingest and its replay', async () => {
    const { test, org, ingest, nudges } = await givenApi({ linked: true });
    const headers = { 'idempotency-key': 'run-1' };

    const first = await ingest({ commit: SHA }, headers);
    const replay = await ingest({ commit: SHA }, headers);

    expect([first.status, replay.status]).toEqual([201, 201]);
    const { id } = (await first.json()) as { id: string };
    expect((await test.store.listRunDeliveries(org.id, id)).map((each) => each.kind)).toEqual([
      'status_project',
    ]);
    expect(nudges).toHaveLength(1);
  });

  it('enqueues nothing for a repository without a link, or a run without a commit or pull request', async () => {
    const unlinked = await givenApi({ linked: false });
    const response = await unlinked.ingest({ commit: SHA, pull_request: 3 });
    const { id } = (await response.json()) as { id: string };
    expect(await unlinked.test.store.listRunDeliveries(unlinked.org.id, id)).toEqual([]);

    const linked = await givenApi({ linked: true });
    const bare = await linked.ingest({});
    const bareId = ((await bare.json()) as { id: string }).id;
    expect(await linked.test.store.listRunDeliveries(linked.org.id, bareId)).toEqual([]);
    expect([unlinked.nudges.length, linked.nudges.length]).toEqual([0, 0]);
  });
});
