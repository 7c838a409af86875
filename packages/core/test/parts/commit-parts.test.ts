import { judgeOverdueCommitReports } from '@covgate/core';
import { createTestApi, type FakeGithubRest, type TestApi } from '@covgate/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  BASE_SHA,
  deliverOnce,
  filesOf,
  linkWebToFakeGithub,
  PARTS,
  permutations,
  SHA,
} from './three-parts.js';

const TOKEN = 'github_pat_parts0123456789SECRET';
const GITHUB_REPO = 'octo/widgets';

let test: TestApi;
let secret: string;
let orgId: string;
let orgSlug: string;

beforeEach(async () => {
  test = createTestApi({ dashboardUrl: 'https://covgate.example.com/' });
  const org = await test.createOrganisation();
  orgId = org.id;
  orgSlug = org.slug;
  secret = (await test.insertToken(org)).secret;
});

const headers = () => ({
  authorization: `Bearer ${secret}`,
  'content-type': 'application/json',
});

/** Posts a run of `web` (a part when the body names one). */
function ingest(body: Record<string, unknown>, extra: Record<string, string> = {}) {
  return test.request('/v1/executions', {
    method: 'POST',
    headers: { ...headers(), ...extra },
    body: JSON.stringify({
      repo: 'web',
      branch: 'feature',
      base_branch: 'main',
      commit: SHA,
      pull_request: 7,
      ...body,
    }),
  });
}

/** Posts part `name` of the commit, expecting the three parts unless told otherwise. */
function sendPart(name: string, body: Record<string, unknown> = {}, extra = {}) {
  return ingest(
    {
      coverage: 50,
      part: name,
      expect_parts: ['unit', 'integration', 'e2e'],
      files: filesOf(PARTS[name]!),
      ...body,
    },
    extra,
  );
}

/** The base branch's run at the merge base: 70.00 %, whole. */
async function givenBaseline() {
  const response = await ingest({
    branch: 'main',
    commit: BASE_SHA,
    pull_request: null,
    coverage: 70,
  });
  expect(response.status).toBe(201);
}

const json = async (response: Response) => (await response.json()) as Record<string, unknown>;

function finish(body: Record<string, unknown> = {}) {
  return test.request('/v1/executions/finish', {
    method: 'POST',
    headers: headers(),
    body: JSON.stringify({ repo: 'web', commit: SHA, ...body }),
  });
}

describe('parts of one commit', () => {
  it('answers a part with what the commit has, pending until every expected part arrived', async () => {
    await givenBaseline();
    const first = await sendPart('unit');
    expect(first.status).toBe(201);
    const body = await json(first);
    expect(body).toMatchObject({
      outcome: 'pending',
      commit: SHA,
      // a.ts 1-4 of 10, b.ts none of 4.
      coverage: 28.57,
      file_count: 2,
      parts: {
        received: ['unit'],
        expected: ['e2e', 'integration', 'unit'],
        expected_source: 'run',
        missing: ['e2e', 'integration'],
        missing_count: 2,
        complete: false,
        closed: false,
        deadline: '2026-03-01T13:00:00Z',
        reason: null,
      },
    });
  });

  it('gives the same merged report and verdict whatever order the parts arrive in', async () => {
    const finals = [];
    for (const order of permutations(['unit', 'integration', 'e2e'])) {
      test = createTestApi();
      const org = await test.createOrganisation();
      secret = (await test.insertToken(org)).secret;
      await givenBaseline();
      const answers = [];
      for (const name of order) answers.push(await json(await sendPart(name)));
      expect(answers.slice(0, 2).map((answer) => answer.outcome)).toEqual(['pending', 'pending']);
      const last = answers[2]!;
      const detail = await json(
        await test.request(`/v1/executions/${last.id as string}`, { headers: headers() }),
      );
      finals.push({
        outcome: last.outcome,
        coverage: last.coverage,
        delta: last.delta,
        patch: last.patch,
        decided_by: last.decided_by,
        received: (last.parts as { received: string[] }).received,
        files: detail.files,
        ids: new Set(answers.map((answer) => answer.id)).size,
      });
    }
    // a.ts: 1-6, 9, 10 of 10; b.ts: 1-3 of 4; c.ts: 2 of 2. 13 of 16 lines.
    const expected = {
      outcome: 'pass',
      coverage: 81.25,
      delta: '+11.25',
      patch: {
        covered: 3,
        coverable: 3,
        percent: 100,
        target: 80,
        target_source: 'default',
        passed: true,
      },
      decided_by: 'delta',
      received: ['e2e', 'integration', 'unit'],
      files: [
        { path: 'src/a.ts', covered: 8, coverable: 10, patch_covered: 2, patch_coverable: 2 },
        { path: 'src/b.ts', covered: 3, coverable: 4, patch_covered: 1, patch_coverable: 1 },
        { path: 'src/c.ts', covered: 2, coverable: 2 },
      ],
      ids: 1,
    };
    expect(finals).toEqual(Array.from({ length: 6 }, () => expected));
  });

  it('lists and counts the commit once, as its merged report', async () => {
    for (const name of ['unit', 'integration', 'e2e']) await sendPart(name);
    const page = await test.request(`/v1/executions?org=${orgSlug}&repo=web`, {
      headers: headers(),
    });
    const { executions, total } = (await page.json()) as {
      executions: { coverage: number; outcome: string }[];
      total: number;
    };
    expect(total).toBe(1);
    expect(executions.map((run) => [run.coverage, run.outcome])).toEqual([[81.25, 'pass']]);
  });

  it('replaces a part sent again, and merges the report again from what it then has', async () => {
    await sendPart('unit');
    await sendPart('integration');
    const complete = await json(await sendPart('e2e'));
    expect(complete.coverage).toBe(81.25);
    // The re-run of integration covered nothing of a.ts.
    const rerun = await json(
      await sendPart('integration', {
        files: filesOf([
          ['src/a.ts', [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], [], [9, 10]],
          ['src/b.ts', [1, 2, 3, 4], [1], [2]],
        ]),
      }),
    );
    // a.ts: 1-4 of 10 now; 9 of 16 lines; the patch's a.ts lines are missed.
    expect(rerun).toMatchObject({
      id: complete.id,
      coverage: 56.25,
      outcome: 'fail',
      decided_by: 'patch',
      patch: { covered: 1, coverable: 3 },
      parts: { received: ['e2e', 'integration', 'unit'], complete: true },
    });
  });

  it('replays the same request with the same key, and refuses the key for another', async () => {
    const key = { 'idempotency-key': 'part-unit-1' };
    const first = await sendPart('unit', {}, key);
    expect(first.status).toBe(201);
    const firstBody = await json(first);
    const again = await sendPart('unit', {}, key);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await json(again)).toEqual(firstBody);
    const other = await sendPart('integration', {}, key);
    expect(other.status).toBe(409);
    expect(await json(other)).toEqual({
      error: 'idempotency key already used for another request',
    });
  });

  it('refuses a part that cannot merge exactly, and one without a commit', async () => {
    const countsOnly = await ingest({
      coverage: 50,
      part: 'unit',
      files: [{ path: 'src/a.ts', covered: 1, coverable: 2 }],
    });
    expect(countsOnly.status).toBe(400);
    expect(await json(countsOnly)).toEqual({
      error: 'invalid parameter: files (a part needs line data for every file: src/a.ts)',
    });
    const noFiles = await ingest({ coverage: 50, part: 'unit' });
    expect(await json(noFiles)).toEqual({
      error: 'invalid parameter: files (a part needs its files with line data)',
    });
    const noCommit = await ingest({ coverage: 50, part: 'unit', commit: null });
    expect(await json(noCommit)).toEqual({ error: 'invalid parameter: part (needs commit)' });
    const badName = await ingest({ coverage: 50, part: 'no spaces' });
    expect(await json(badName)).toEqual({ error: 'invalid parameter: part' });
    const expectOnly = await ingest({ coverage: 50, expect_parts: 3 });
    expect(await json(expectOnly)).toEqual({
      error: 'invalid parameter: expect_parts (only with part)',
    });
    const badExpect = await sendPart('unit', { expect_parts: 0 });
    expect(await json(badExpect)).toEqual({ error: 'invalid parameter: expect_parts' });
    expect(await test.store.countExecutions(orgId, 'web')).toBe(0);
  });

  it('refuses a part of the commit reported on another branch', async () => {
    await sendPart('unit');
    const other = await sendPart('integration', { branch: 'other' });
    expect(other.status).toBe(409);
    expect(await json(other)).toEqual({
      error: 'part of a commit reported on another branch: feature',
    });
  });

  it('fails a commit still incomplete at its deadline, on read and by the sweep', async () => {
    await givenBaseline();
    const { id } = await json(await sendPart('unit'));
    await sendPart('integration');
    test.clock.advance(59 * 60 * 1000);
    expect(await judgeOverdueCommitReports(test.api)).toBe(0);
    test.clock.advance(60 * 1000);
    const read = await json(
      await test.request(`/v1/executions/${id as string}`, { headers: headers() }),
    );
    expect(read).toMatchObject({
      outcome: 'fail',
      parts: { complete: false, missing: ['e2e'], reason: 'incomplete: missing e2e' },
    });
    // The read judged it: the sweep has nothing left.
    expect(await judgeOverdueCommitReports(test.api)).toBe(0);
  });

  it('judges overdue reports in the sweep without a read', async () => {
    const { id } = await json(await sendPart('unit', { expect_parts: 4 }));
    test.clock.advance(60 * 60 * 1000);
    expect(await judgeOverdueCommitReports(test.api)).toBe(1);
    const record = await test.store.findExecution(orgId, id as string);
    expect(record?.outcome).toBe('fail');
    expect(record?.parts?.reason).toBe('incomplete: missing 3 of 4 parts');
    // A late part can still complete the commit: it is merged and judged again.
    for (const name of ['integration', 'e2e']) await sendPart(name, { expect_parts: 3 });
    expect((await test.store.findExecution(orgId, id as string))?.outcome).toBe('pass');
  });

  it('closes a commit on finish: its verdict, or incomplete when expected parts are missing', async () => {
    await sendPart('unit', { expect_parts: null });
    const waiting = await json(await sendPart('e2e', { expect_parts: null }));
    expect(waiting).toMatchObject({
      outcome: 'pending',
      parts: { expected: null, expected_source: null, complete: false, missing: [] },
    });
    const finished = await finish();
    expect(finished.status).toBe(200);
    // Judged on what arrived: 8 of 16 lines, and the patch's a.ts lines that only integration
    // would have run are missed.
    expect(await json(finished)).toMatchObject({
      outcome: 'fail',
      decided_by: 'patch',
      coverage: 50,
      patch: { covered: 1, coverable: 3 },
      parts: { closed: true, complete: true, reason: null },
    });

    await sendPart('unit', { commit: BASE_SHA, expect_parts: ['unit', 'integration'] });
    const missing = await json(await finish({ commit: BASE_SHA }));
    expect(missing).toMatchObject({
      outcome: 'fail',
      parts: { closed: true, reason: 'incomplete: missing integration' },
    });

    const none = await finish({ commit: 'c'.repeat(40) });
    expect(none.status).toBe(404);
    expect(await json(none)).toEqual({ error: 'no part of this commit was received' });
  });

  it('expects the parts the repository names, else those of the base branch', async () => {
    const settings = await test.request('/v1/repos/settings', {
      method: 'PATCH',
      headers: headers(),
      body: JSON.stringify({
        repo: 'web',
        expected_parts: ['unit', 'e2e'],
        parts_deadline_minutes: 5,
      }),
    });
    expect(settings.status).toBe(200);
    expect(await json(settings)).toMatchObject({
      expected_parts: ['e2e', 'unit'],
      parts_deadline_minutes: 5,
      effective_parts_deadline_minutes: 5,
    });
    // The base branch's runs send no patch.
    const onMain = (name: string) => ({
      expect_parts: null,
      branch: 'main',
      pull_request: null,
      commit: BASE_SHA,
      files: filesOf(PARTS[name]!.map(([path, coverable, covered]) => [path, coverable, covered])),
    });
    const first = await json(await sendPart('unit', onMain('unit')));
    expect(first.parts).toMatchObject({
      expected: ['e2e', 'unit'],
      expected_source: 'repository',
      deadline: '2026-03-01T12:05:00Z',
    });
    expect((await json(await sendPart('e2e', onMain('e2e')))).outcome).toBe('pass');
    await test.request('/v1/repos/settings', {
      method: 'PATCH',
      headers: headers(),
      body: JSON.stringify({ repo: 'web', expected_parts: null }),
    });
    // The base branch's last complete report had unit and e2e.
    const next = await json(await sendPart('unit', { expect_parts: null }));
    expect(next.parts).toMatchObject({
      expected: ['e2e', 'unit'],
      expected_source: 'base_branch',
      missing: ['e2e'],
    });
  });

  it('shows a pending report on the badge without a figure', async () => {
    await sendPart('unit', { branch: 'main', pull_request: null });
    const badge = await test.request(`/v1/badge/${orgSlug}/web?branch=main`);
    expect(await badge.text()).toContain('pending');
  });
});

/** The base branch's report at `commit`, merged from the named parts (no patch), complete. */
async function givenBaseReport(names: string[], commit = BASE_SHA) {
  for (const name of names) {
    const response = await sendPart(name, {
      branch: 'main',
      pull_request: null,
      commit,
      expect_parts: names,
      files: filesOf(PARTS[name]!.map(([path, coverable, covered]) => [path, coverable, covered])),
    });
    expect(response.status).toBe(201);
  }
}

function setRepo(body: Record<string, unknown>) {
  return test.request('/v1/repos/settings', {
    method: 'PATCH',
    headers: headers(),
    body: JSON.stringify({ repo: 'web', ...body }),
  });
}

describe('carryforward of a missing part', () => {
  const TWO_DAYS = 2 * 86_400;

  it('takes a missing part from the merge base on finish, and names it', async () => {
    await givenBaseReport(['unit', 'integration', 'e2e']);
    const base = await test.store.findCommitReport({
      orgId,
      repo: 'web',
      commit: BASE_SHA,
      component: null,
    });
    const settings = await setRepo({ carryforward_parts: ['integration'] });
    expect(await json(settings)).toMatchObject({ carryforward_parts: ['integration'] });
    test.clock.advance(TWO_DAYS * 1000);
    await sendPart('unit', { base_commit: BASE_SHA });
    const waiting = await json(await sendPart('e2e', { base_commit: BASE_SHA }));
    // Never carried before the report is judged: the real part may still come.
    expect(waiting).toMatchObject({
      outcome: 'pending',
      parts: { carried: [], missing: ['integration'] },
    });
    const finished = await finish();
    expect(finished.status).toBe(200);
    const body = await json(finished);
    // integration's lines but the changed ones: a.ts 1-6 of 10, b.ts 1-3 of 4, c.ts 2 of 2,
    // 11 of 16. The patch is this commit's parts' alone: a.ts 9-10 are missed.
    expect(body).toMatchObject({
      outcome: 'fail',
      decided_by: 'delta',
      coverage: 68.75,
      delta: '-12.50',
      patch: { covered: 1, coverable: 3 },
      parts: {
        received: ['e2e', 'unit'],
        carried: [
          {
            part: 'integration',
            from_commit: BASE_SHA,
            from_run: base!.id,
            age_seconds: TWO_DAYS,
          },
        ],
        missing: [],
        missing_count: 0,
        complete: true,
        closed: true,
        reason: null,
      },
    });
    const detail = await json(
      await test.request(`/v1/executions/${body.id as string}`, { headers: headers() }),
    );
    expect(detail.files).toEqual([
      { path: 'src/a.ts', covered: 6, coverable: 10, patch_covered: 0, patch_coverable: 2 },
      { path: 'src/b.ts', covered: 3, coverable: 4, patch_covered: 1, patch_coverable: 1 },
      { path: 'src/c.ts', covered: 2, coverable: 2 },
    ]);

    // The real part replaces the carried one: merged again, nothing carried.
    const real = await json(await sendPart('integration', { base_commit: BASE_SHA }));
    expect(real).toMatchObject({
      id: body.id,
      outcome: 'pass',
      coverage: 81.25,
      patch: { covered: 3, coverable: 3 },
      parts: { received: ['e2e', 'integration', 'unit'], carried: [], complete: true },
    });
  });

  it("falls back to the base branch's latest complete report, and carries at the deadline", async () => {
    // The merge base's own report has no integration part; a later one on main has.
    await givenBaseReport(['unit', 'e2e'], BASE_SHA);
    test.clock.advance(3600 * 1000);
    await givenBaseReport(['unit', 'integration', 'e2e'], 'c'.repeat(40));
    test.clock.advance(3600 * 1000);
    const latest = await test.store.findBaseline(orgId, 'web', 'main', null);
    expect(latest?.commit).toBe('c'.repeat(40));
    // Only the run names it here: `carryforward: true` carries every missing part.
    const { id } = await json(
      await sendPart('unit', { base_commit: BASE_SHA, carryforward: true }),
    );
    test.clock.advance(60 * 60 * 1000);
    expect(await judgeOverdueCommitReports(test.api)).toBe(1);
    const record = await test.store.findExecution(orgId, id as string);
    // integration from the older commit; e2e from the merge base.
    expect(
      record?.parts?.carried.map((part) => [part.part, part.fromCommit, part.ageSeconds]),
    ).toEqual([
      ['e2e', BASE_SHA, 10_800],
      ['integration', 'c'.repeat(40), 7200],
    ]);
    // a.ts 1-6, b.ts 1 and 3 (2 is changed), c.ts: 10 of 16, against the merge base's 50 %.
    expect(record).toMatchObject({
      outcome: 'fail',
      decidedBy: 'patch',
      coverage: 62.5,
      delta: '+12.50',
      patchCovered: 0,
      patchCoverable: 3,
    });
    expect(record?.parts?.reason).toBeNull();
  });

  it('judges the report incomplete when no earlier report has the part', async () => {
    await givenBaseReport(['unit', 'e2e']);
    await setRepo({ carryforward_parts: true });
    await sendPart('unit', { base_commit: BASE_SHA });
    const body = await json(await finish());
    expect(body).toMatchObject({
      outcome: 'fail',
      parts: {
        carried: [{ part: 'e2e', from_commit: BASE_SHA }],
        missing: ['integration'],
        complete: false,
        reason: 'incomplete: missing integration',
      },
    });
  });

  it('carries nothing the settings do not name, and refuses a bad list', async () => {
    await givenBaseReport(['unit', 'integration', 'e2e']);
    await setRepo({ carryforward_parts: ['e2e'] });
    await sendPart('unit', { base_commit: BASE_SHA });
    await sendPart('e2e', { base_commit: BASE_SHA });
    expect(await json(await finish())).toMatchObject({
      outcome: 'fail',
      parts: { carried: [], reason: 'incomplete: missing integration' },
    });
    const bad = await setRepo({ carryforward_parts: ['bad name'] });
    expect(bad.status).toBe(400);
    expect(await json(bad)).toEqual({ error: 'invalid parameter: carryforward_parts' });
    const badRun = await sendPart('unit', { carryforward: false });
    expect(await json(badRun)).toEqual({ error: 'invalid parameter: carryforward' });
    const notPart = await ingest({ coverage: 50, carryforward: true });
    expect(await json(notPart)).toEqual({
      error: 'invalid parameter: carryforward (only with part)',
    });
  });
});

describe('the code host sees only the merged state of a commit', () => {
  let fake: FakeGithubRest;

  beforeEach(async () => {
    fake = await linkWebToFakeGithub(test, orgId, GITHUB_REPO, TOKEN);
  });

  afterEach(async () => {
    await fake.close();
  });

  const send = () => deliverOnce(test, 'parts-test');

  const project = () =>
    fake.statuses
      .filter((status) => status.context === 'covgate/project')
      .map((status) => [status.state, status.description]);

  it('posts pending statuses naming what is missing, then the merged verdict and one comment', async () => {
    await givenBaseline();
    await send();
    fake.statuses.length = 0;
    for (const name of ['e2e', 'unit']) {
      await sendPart(name);
      await send();
    }
    expect(project()).toEqual([
      ['pending', '1 of 3 parts: missing integration, unit'],
      ['pending', '2 of 3 parts: missing integration'],
    ]);
    expect(fake.commentsOf(GITHUB_REPO, 7)).toEqual([]);
    await sendPart('integration');
    await send();
    expect(project().at(-1)).toEqual(['success', '81.25% (+11.25) pass']);
    expect(
      fake.statuses.filter((status) => status.context === 'covgate/patch').at(-1),
    ).toMatchObject({
      state: 'success',
      description: 'patch 100.00% >= 80% pass',
    });
    const comments = fake.commentsOf(GITHUB_REPO, 7);
    expect(comments).toHaveLength(1);
    expect(comments[0]!.body).toContain('### covgate: **pass**');
    expect(comments[0]!.body).toContain('| Project | 81.25% |');
  });

  it('replaces statuses not yet sent, so a single part is never the last word', async () => {
    for (const name of ['unit', 'integration', 'e2e']) await sendPart(name);
    await send();
    expect(project()).toEqual([['success', '81.25% (no baseline) pass']]);
    expect(fake.commentsOf(GITHUB_REPO, 7)).toHaveLength(1);
  });

  it('fails a commit past its deadline with the reason in the status and the comment', async () => {
    await sendPart('unit');
    await send();
    test.clock.advance(60 * 60 * 1000);
    expect(await judgeOverdueCommitReports(test.api)).toBe(1);
    await send();
    expect(project()).toEqual([
      ['pending', '1 of 3 parts: missing e2e, integration'],
      ['failure', 'incomplete: missing e2e, integration'],
    ]);
    const [comment] = fake.commentsOf(GITHUB_REPO, 7);
    expect(comment?.body).toContain(
      'Failed: incomplete: missing e2e, integration; the report was judged without all its parts.',
    );
  });
});

describe('parts of a commit whose detail retention pruned', () => {
  it('refuses another part of the complete commit, 409, and keeps its report as it was', async () => {
    await givenBaseline();
    for (const name of ['unit', 'integration', 'e2e']) {
      expect((await sendPart(name)).status).toBe(201);
    }
    const key = { orgId, repo: 'web', commit: SHA, component: null };
    const report = await test.store.findCommitReport(key);
    await test.store.pruneRunDetail(
      orgId,
      [report?.id as string],
      new Date('2026-03-01T12:00:00Z'),
    );

    const again = await sendPart('unit');

    expect(again.status).toBe(409);
    expect(await json(again)).toEqual({
      error:
        'the parts of this commit were pruned by the retention setting: its report cannot be merged again',
    });
    expect(await test.store.findCommitReport(key)).toEqual(report);
  });
});
