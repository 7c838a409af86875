import {
  createAuditLogger,
  createManualClock,
  createMemoryAuditSink,
  createMemoryStore,
  type ExecutionRecord,
  type ManualClock,
  type RepositoryLink,
  type Store,
} from '@covgate/core';
import {
  buildExecution,
  buildOrganisation,
  type FakeGithubRest,
  newPrefixedId,
  startFakeGithubRest,
} from '@covgate/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { encodeFileList, type FileEntry, fileListText } from '../../src/executions/file-list.js';
import { encodeLineData, encodeRanges } from '../../src/executions/line-data.js';
import { encodeRunLines, runLinesText } from '../../src/executions/run-lines.js';
import { createFeedbackSender } from '../../src/outbox/feedback-sender.js';
import {
  createOutboxDispatcher,
  type OutboxWorkerOptions,
  startOutboxWorker,
} from '../../src/outbox/outbox-worker.js';
import { commentMarker, planRunDeliveries } from '../../src/outbox/run-feedback.js';
import { wholeSeconds } from '../../src/time/timestamp.js';

const START = new Date('2026-03-01T12:00:00Z');
const SHA = 'a'.repeat(40);
const TOKEN = 'github_pat_0123456789abcdefSECRET';
const GITHUB_REPO = 'octo/widgets';

let fake: FakeGithubRest;
let store: Store;
let clock: ManualClock;
let logLines: string[];
let audit: ReturnType<typeof createMemoryAuditSink>;
let orgId: string;

const logger = {
  info: (line: string) => logLines.push(`info ${line}`),
  warn: (line: string) => logLines.push(`warn ${line}`),
  error: (line: string) => logLines.push(`error ${line}`),
};

beforeEach(async () => {
  fake = await startFakeGithubRest();
  fake.allowToken(TOKEN, [GITHUB_REPO]);
  store = createMemoryStore();
  clock = createManualClock(START);
  logLines = [];
  audit = createMemoryAuditSink();
  const org = buildOrganisation();
  orgId = org.id;
  await store.createOrganisation(org);
});

afterEach(async () => {
  await fake.close();
  await store.close();
});

function dispatcher(overrides: Partial<OutboxWorkerOptions> = {}) {
  return createOutboxDispatcher({
    store,
    logger,
    audit: createAuditLogger(audit),
    decryptCredential: (link) => `${link.credential.replace('sealed:', '')}`,
    clock,
    random: () => 0.5,
    owner: 'test-sender',
    requestTimeoutMs: 2_000,
    // The fake GitHub listens on loopback.
    allowPrivateCodeHosts: true,
    ...overrides,
  });
}

async function givenLink(overrides: Partial<RepositoryLink> = {}): Promise<RepositoryLink> {
  const link: RepositoryLink = {
    orgId,
    repo: 'web',
    host: 'github',
    repository: GITHUB_REPO,
    apiUrl: fake.apiUrl,
    credential: `sealed:${TOKEN}`,
    credentialHint: '…CRET',
    createdBy: newPrefixedId('usr_'),
    createdAt: START,
    updatedAt: START,
    ...overrides,
  };
  await store.putRepositoryLink(link);
  return link;
}

/** The stored form of a per-file list, `[path, covered, coverable]` each. */
function storedFiles(rows: [string, number, number][]): Promise<Uint8Array> {
  const entries: FileEntry[] = rows
    .map(([path, covered, coverable]) => ({ path, covered, coverable }))
    .sort((a, b) => (a.path < b.path ? -1 : 1));
  return encodeFileList(fileListText(entries));
}

/** Records a pull-request run of `web` with its deliveries, as the ingest route does. */
async function givenRun(
  overrides: Partial<ExecutionRecord> = {},
  files: Uint8Array | null = null,
  lines: Uint8Array | null = null,
): Promise<ExecutionRecord> {
  const record = buildExecution({
    orgId,
    repo: 'web',
    branch: 'feature',
    commit: SHA,
    pullRequest: 7,
    coverage: 84.13,
    delta: '+0.25',
    baselineId: newPrefixedId('exe_'),
    baselineCoverage: 83.88,
    baselineCommit: 'b'.repeat(40),
    baselineCreatedAt: START,
    baselineSelection: 'latest',
    patchCovered: 21,
    patchCoverable: 23,
    patchTarget: 80,
    patchTargetSource: 'default',
    createdAt: wholeSeconds(clock.now()),
    ...overrides,
  });
  const link = await store.findRepositoryLink(orgId, 'web');
  const deliveries = planRunDeliveries(record, {
    host: link?.host ?? 'github',
    repository: link?.repository ?? GITHUB_REPO,
    runUrl: `https://covgate.example.com/dashboard/repos/web/runs/${record.id}`,
    newId: () => newPrefixedId('dlv_'),
  });
  await store.insertExecution(record, files, deliveries, lines);
  return record;
}

/** Records a run of a branch without a pull request: one project status to send, no patch. */
const givenBranchRun = (overrides: Partial<ExecutionRecord> = {}) =>
  givenRun({
    pullRequest: null,
    patchCovered: null,
    patchCoverable: null,
    patchTarget: null,
    ...overrides,
  });

/**
 * `store` whose methods answer `database stalled` while `failing(name)` says so (a stalled
 * database: the deadline runs out); `afterFirstClaim` runs once the first claim is stored.
 */
function stallable(failing: (method: string) => boolean, afterFirstClaim: () => void): Store {
  let claims = 0;
  return new Proxy(store, {
    get(target, name) {
      const value = Reflect.get(target, name) as unknown;
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        if (failing(String(name))) throw new Error('database stalled');
        const answer = await Reflect.apply(value, target, args);
        if (name === 'claimDeliveries' && ++claims === 1) afterFirstClaim();
        return answer;
      };
    },
  });
}

const states = async (record: ExecutionRecord) =>
  (await store.listRunDeliveries(orgId, record.id)).map((each) => [each.kind, each.state]);

describe('outbox worker', () => {
  it("sends a pull-request run's two statuses and one comment, and audits each credential use", async () => {
    await givenLink();
    const run = await givenRun();

    expect(await dispatcher().runOnce()).toBe(3);

    const runUrl = `https://covgate.example.com/dashboard/repos/web/runs/${run.id}`;
    expect(fake.statuses).toEqual([
      {
        repo: GITHUB_REPO,
        sha: SHA,
        state: 'success',
        context: 'covgate/project',
        description: '84.13% (+0.25) pass',
        target_url: runUrl,
      },
      {
        repo: GITHUB_REPO,
        sha: SHA,
        state: 'success',
        context: 'covgate/patch',
        description: 'patch 91.30% >= 80% pass',
        target_url: runUrl,
      },
    ]);
    const [comment] = fake.commentsOf(GITHUB_REPO, 7);
    expect(fake.commentsOf(GITHUB_REPO, 7)).toHaveLength(1);
    expect(comment?.body).toBe(
      [
        '<!-- covgate:pr-comment -->',
        `<!-- covgate:run ${run.id} -->`,
        '### covgate: **pass**',
        '',
        'Passed: +0.25 pts against the baseline. The patch meets its target: 91.30% covered, target 80.00% (covgate’s default).',
        '',
        '| | Coverage | Change | Result |',
        '|---|---|---|---|',
        `| Project | 84.13% | +0.25 against \`main\` at \`bbbbbbb\` | pass |`,
        '| Patch | 91.30% (21 of 23 changed lines) | target 80% | pass |',
        '',
        `[Open the run in covgate](${runUrl}) · commit \`aaaaaaa\``,
        '',
      ].join('\n'),
    );
    const deliveries = await store.listRunDeliveries(orgId, run.id);
    expect(deliveries.map((each) => [each.kind, each.state, each.attempts, each.sentAt])).toEqual([
      ['status_project', 'sent', 1, START],
      ['status_patch', 'sent', 1, START],
      ['comment', 'sent', 1, START],
    ]);
    expect(audit.lines).toEqual(
      deliveries.map(
        (each) => `[audit] repository.credential.use org_id=${orgId} repo=web delivery=${each.id}`,
      ),
    );
    expect(logLines).toEqual([]);
  });

  it('lists in the comment the files that lost most against the baseline run, read when it is sent', async () => {
    await givenLink();
    const baseline = buildExecution({ orgId, repo: 'web', branch: 'main', commit: 'b'.repeat(40) });
    await store.insertExecution(
      baseline,
      await storedFiles([
        ['src/a.ts', 10, 10],
        ['src/b.ts', 8, 10],
        ['src/c.ts', 9, 10],
        ['src/d.ts', 10, 10],
        ['src/e.ts', 5, 10],
        ['src/f.ts', 7, 10],
        ['src/g.ts', 1, 10],
        ['src/gone.ts', 4, 4],
      ]),
    );
    const run = await givenRun(
      { baselineId: baseline.id },
      await storedFiles([
        ['src/a.ts', 5, 10],
        ['src/b.ts', 7, 10],
        ['src/c.ts', 8, 10],
        ['src/d.ts', 7, 10],
        ['src/e.ts', 4, 10],
        ['src/f.ts', 6, 10],
        ['src/g.ts', 9, 10],
        ['src/new.ts', 0, 3],
      ]),
    );

    await dispatcher().runOnce();

    const [comment] = fake.commentsOf(GITHUB_REPO, 7);
    expect(comment?.body.split('\n').slice(10)).toEqual([
      '',
      '**Files that lost most**',
      '',
      '| File | Coverage | Change |',
      '|---|---|---|',
      '| `src/a.ts` | 50.00% | -50.00 |',
      '| `src/d.ts` | 70.00% | -30.00 |',
      '| `src/b.ts` | 70.00% | -10.00 |',
      '| `src/c.ts` | 80.00% | -10.00 |',
      '| `src/e.ts` | 40.00% | -10.00 |',
      '',
      '…and 1 more.',
      '',
      `[Open the run in covgate](https://covgate.example.com/dashboard/repos/web/runs/${run.id}) · commit \`aaaaaaa\``,
      '',
    ]);
    expect(await states(run)).toContainEqual(['comment', 'sent']);
  });

  it('says so in the comment when no file lost coverage', async () => {
    await givenLink();
    const baseline = buildExecution({ orgId, repo: 'web', branch: 'main' });
    await store.insertExecution(baseline, await storedFiles([['src/a.ts', 5, 10]]));
    await givenRun({ baselineId: baseline.id }, await storedFiles([['src/a.ts', 6, 10]]));

    await dispatcher().runOnce();

    const [comment] = fake.commentsOf(GITHUB_REPO, 7);
    expect(comment?.body.split('\n').slice(10, 13)).toEqual([
      '',
      'No file lost coverage against the baseline run.',
      '',
    ]);
  });

  it("lists in the comment the changed lines no test ran, read from the run's line data when it is sent", async () => {
    await givenLink();
    const lines = await encodeRunLines(
      runLinesText([
        {
          path: 'src/a.ts',
          lines: encodeLineData({ coverable: [1, 2, 3, 4, 5, 9], covered: [1, 2, 9] }),
          patch: encodeRanges([2, 3, 4, 5, 6, 9]),
        },
        {
          path: 'src/b.ts',
          lines: encodeLineData({ coverable: [7, 8], covered: [7] }),
          patch: encodeRanges([8]),
        },
      ]),
    );
    const run = await givenRun(
      { baselineId: null, patchCovered: 2, patchCoverable: 6 },
      null,
      lines,
    );

    await dispatcher().runOnce();

    const runUrl = `https://covgate.example.com/dashboard/repos/web/runs/${run.id}`;
    const [comment] = fake.commentsOf(GITHUB_REPO, 7);
    expect(comment?.body.split('\n').slice(10)).toEqual([
      '',
      '**Changed lines not covered** (4 lines in 2 files)',
      '',
      `- [\`src/a.ts\`](${runUrl}/files/src%2Fa.ts): 3-5`,
      `- [\`src/b.ts\`](${runUrl}/files/src%2Fb.ts): 8`,
      '',
      `[Open the run in covgate](${runUrl}) · commit \`aaaaaaa\``,
      '',
    ]);
  });

  it('keeps one comment when two processes create it for two pushes at the same time', async () => {
    const sender = createFeedbackSender({ allowPrivateCodeHosts: true });
    const target = { apiUrl: fake.apiUrl, token: TOKEN };
    const payload = (executionId: string) => ({
      host: 'github' as const,
      repository: GITHUB_REPO,
      pull_request: 7,
      marker: commentMarker(null),
      execution_id: executionId,
      body: `${commentMarker(null)}\n<!-- covgate:run ${executionId} -->\nrun ${executionId}`,
    });
    const older = newPrefixedId('exe_');
    const newer = newPrefixedId('exe_');

    const results = await Promise.all([
      sender.upsertComment(target, payload(older)),
      sender.upsertComment(target, payload(newer)),
    ]);

    expect(results.every((result) => result.ok)).toBe(true);
    const comments = fake.commentsOf(GITHUB_REPO, 7);
    expect(comments.map((each) => each.body.split('\n')[2])).toEqual([`run ${newer}`]);
    expect(fake.requests.filter((line) => line.startsWith('POST'))).toHaveLength(2);
    expect(fake.requests.filter((line) => line.startsWith('DELETE'))).toHaveLength(1);
  });

  it("edits the pull request's comment on the next push instead of adding one", async () => {
    await givenLink();
    await givenRun();
    await dispatcher().runOnce();
    clock.advance(60_000);
    const second = await givenRun({ coverage: 70, delta: '-14.13', outcome: 'fail' });

    await dispatcher().runOnce();

    const comments = fake.commentsOf(GITHUB_REPO, 7);
    expect(comments).toHaveLength(1);
    expect(comments[0]?.edits).toBe(1);
    expect(comments[0]?.body).toContain(`<!-- covgate:run ${second.id} -->`);
    expect(comments[0]?.body).toContain('### covgate: **fail**');
    expect(fake.statuses.at(-2)).toMatchObject({
      state: 'failure',
      description: '70.00% (-14.13) fail',
    });
  });

  it("finds its comment on the second page of a long conversation (GitHub's Link header)", async () => {
    await givenLink();
    await givenRun();
    await dispatcher().runOnce();
    const [ours] = fake.commentsOf(GITHUB_REPO, 7);
    for (let index = 0; index < 150; index += 1) fake.addComment(GITHUB_REPO, 7, `LGTM ${index}`);
    // Ours must come after the first page: move it to the end.
    fake.comments.delete(ours!.id);
    fake.comments.set(ours!.id, ours!);
    clock.advance(60_000);
    const second = await givenRun({ coverage: 85 });
    fake.requests.length = 0;

    await dispatcher().runOnce();

    expect(fake.requests.filter((line) => line.startsWith('GET'))).toEqual([
      `GET /api/v3/repos/${GITHUB_REPO}/issues/7/comments`,
      `GET /api/v3/repos/${GITHUB_REPO}/issues/7/comments`,
    ]);
    expect(
      fake.commentsOf(GITHUB_REPO, 7).filter((each) => each.body.includes('covgate:pr-comment')),
    ).toHaveLength(1);
    expect(fake.comments.get(ours!.id)?.body).toContain(second.id);
  });

  it('leaves the comment of a newer run when an older run is sent late', async () => {
    await givenLink();
    const older = await givenRun();
    clock.advance(1_000);
    const newer = await givenRun({ coverage: 90 });
    // The newer run's comment goes first (the older one was retried, say).
    const [olderComment] = (await store.listRunDeliveries(orgId, older.id)).filter(
      (each) => each.kind === 'comment',
    );
    await store.claimDeliveries('elsewhere', START, 60_000, 10);
    for (const each of await store.listRunDeliveries(orgId, newer.id)) {
      await store.retryDelivery(each.id, 'elsewhere', {
        at: START,
        nextAttemptAt: START,
        error: 'moved',
        status: null,
      });
    }
    await dispatcher().runOnce();
    await store.retryDelivery(olderComment!.id, 'elsewhere', {
      at: clock.now(),
      nextAttemptAt: clock.now(),
      error: 'moved',
      status: null,
    });

    await dispatcher().runOnce();

    const [comment] = fake.commentsOf(GITHUB_REPO, 7);
    expect(comment?.body).toContain(newer.id);
    expect(comment?.edits).toBe(0);
    expect(await states(older)).toContainEqual(['comment', 'sent']);
  });

  it('retries a 502 with back-off and sends it once GitHub answers', async () => {
    await givenLink();
    const run = await givenBranchRun();
    fake.failNext({ status: 502, body: { message: 'Server Error' } });

    await dispatcher().runOnce();

    const [delivery] = await store.listRunDeliveries(orgId, run.id);
    // 2 s base, equal jitter at 0.5: 1.5 s, stored to the whole second.
    expect(delivery).toMatchObject({
      state: 'pending',
      attempts: 1,
      nextAttemptAt: new Date(START.getTime() + 1_000),
      lastStatus: 502,
      lastError: 'GitHub answered 502: Server Error',
      leaseOwner: null,
    });
    expect(logLines).toEqual([
      `warn [outbox] delivery ${delivery?.id} (status_project of web, run ${run.id}) attempt 1 not sent (GitHub answered 502: Server Error); next attempt at 2026-03-01T12:00:01.500Z`,
    ]);
    expect(await dispatcher().runOnce()).toBe(0);
    clock.advance(1_000);
    expect(await dispatcher().runOnce()).toBe(1);
    expect(await states(run)).toEqual([['status_project', 'sent']]);
    expect(fake.statuses).toHaveLength(1);
  });

  it("waits out a secondary rate limit's retry-after, holding the credential's other deliveries without a request", async () => {
    await givenLink();
    const run = await givenRun();
    fake.failNext({
      status: 403,
      headers: { 'retry-after': '120' },
      body: { message: 'You have exceeded a secondary rate limit.' },
    });

    await dispatcher().runOnce();

    expect(fake.requests).toHaveLength(1);
    const deliveries = await store.listRunDeliveries(orgId, run.id);
    const waitUntil = new Date(START.getTime() + 120_000);
    expect(
      deliveries.map((each) => [each.state, each.nextAttemptAt, each.lastStatus, each.attempts]),
    ).toEqual([
      ['pending', waitUntil, 403, 0],
      ['pending', waitUntil, null, 0],
      ['pending', waitUntil, null, 0],
    ]);
    expect(deliveries[0]?.lastError).toBe(
      'GitHub rate limit (403): waiting until 2026-03-01T12:02:00.000Z',
    );
    clock.advance(119_000);
    expect(await dispatcher().runOnce()).toBe(0);
    clock.advance(1_000);
    expect(await dispatcher().runOnce()).toBe(3);
    expect(await states(run)).toEqual([
      ['status_project', 'sent'],
      ['status_patch', 'sent'],
      ['comment', 'sent'],
    ]);
  });

  it('sends every delivery after 45 s of secondary rate limit then a 500: the waits count as no attempt', async () => {
    await givenLink();
    const run = await givenRun();
    fake.failNext(
      {
        status: 403,
        headers: { 'retry-after': '1' },
        body: { message: 'You have exceeded a secondary rate limit.' },
      },
      45,
    );
    fake.failNext({ status: 500, body: { message: 'Server Error' } });
    const sender = dispatcher();

    for (let second = 0; second < 120 && fake.comments.size === 0; second += 1) {
      await sender.runOnce();
      clock.advance(1_000);
    }
    clock.advance(2_000);
    await sender.runOnce();

    const deliveries = await store.listRunDeliveries(orgId, run.id);
    expect(deliveries.map((each) => [each.kind, each.state, each.attempts])).toEqual([
      ['status_project', 'sent', 2],
      ['status_patch', 'sent', 1],
      ['comment', 'sent', 1],
    ]);
    expect(fake.statuses.map((status) => status.context)).toEqual([
      'covgate/patch',
      'covgate/project',
    ]);
    expect(fake.commentsOf(GITHUB_REPO, 7)).toHaveLength(1);
    expect(fake.requests).toHaveLength(45 + 1 + 1 + 3 + 1);
    expect(logLines.filter((line) => line.includes('failed'))).toEqual([]);
  });

  it('waits for x-ratelimit-reset when the primary rate limit is spent', async () => {
    await givenLink();
    const run = await givenBranchRun();
    const reset = START.getTime() / 1000 + 600;
    fake.failNext({
      status: 403,
      headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset) },
      body: { message: 'API rate limit exceeded' },
    });

    await dispatcher().runOnce();

    const [delivery] = await store.listRunDeliveries(orgId, run.id);
    expect(delivery?.nextAttemptAt).toEqual(new Date(reset * 1000));
    expect([delivery?.state, delivery?.attempts]).toEqual(['pending', 0]);
    expect(logLines).toEqual([
      `warn [outbox] delivery ${delivery?.id} (status_project of web, run ${run.id}) held back (GitHub rate limit (403): waiting until 2026-03-01T12:10:00.000Z); next attempt at 2026-03-01T12:10:00.500Z`,
    ]);
  });

  it('fails a delivery GitHub refuses for good, with the reason and no token anywhere', async () => {
    await givenLink({ credential: 'sealed:github_pat_revokedREVOKEDrevoked' });
    const run = await givenRun();

    await dispatcher().runOnce();

    const failures = await store.listDeliveryFailures(orgId, 'web', 10);
    expect(failures).toHaveLength(3);
    expect(new Set(failures.map((each) => [each.lastStatus, each.lastError].join(' ')))).toEqual(
      new Set(['401 GitHub refused the credential (401): Bad credentials']),
    );
    expect(await states(run)).toEqual([
      ['status_project', 'failed'],
      ['status_patch', 'failed'],
      ['comment', 'failed'],
    ]);
    expect(logLines.join('\n')).not.toContain('REVOKED');
    expect(logLines[0]).toMatch(/failed: GitHub refused the credential \(401\): Bad credentials$/);
  });

  it('fails at once on 404 (a repository the credential cannot see) and 422 (an unknown commit)', async () => {
    await givenLink({ host: 'github', repository: 'octo/private' });
    const hidden = await givenBranchRun();
    await dispatcher().runOnce();
    await givenLink();
    const unknown = await givenBranchRun({ commit: 'c'.repeat(64) });

    await dispatcher().runOnce();

    const [refused] = await store.listRunDeliveries(orgId, hidden.id);
    expect([refused?.state, refused?.lastStatus, refused?.lastError]).toEqual([
      'failed',
      404,
      'GitHub repository, commit or pull request not found, or not visible to the credential (404): Not Found',
    ]);
    const [invalid] = await store.listRunDeliveries(orgId, unknown.id);
    expect([invalid?.state, invalid?.lastStatus, invalid?.lastError]).toEqual([
      'failed',
      422,
      `GitHub refused the request (422): No commit found for SHA: ${'c'.repeat(64)}`,
    ]);
  });

  it('retries while GitHub refuses connections, then gives up after the last attempt', async () => {
    await givenLink();
    const run = await givenBranchRun();
    await fake.setDown('refuse');
    const sender = dispatcher({ retry: { maxAttempts: 3 } });

    await sender.runOnce();
    let [delivery] = await store.listRunDeliveries(orgId, run.id);
    expect([delivery?.state, delivery?.lastStatus, delivery?.lastError]).toEqual([
      'pending',
      null,
      'GitHub unreachable: ECONNREFUSED',
    ]);
    for (const wait of [2_000, 4_000]) {
      clock.advance(wait);
      expect(await sender.runOnce()).toBe(1);
    }
    [delivery] = await store.listRunDeliveries(orgId, run.id);
    expect([delivery?.state, delivery?.attempts, delivery?.lastError]).toEqual([
      'failed',
      3,
      'GitHub unreachable: ECONNREFUSED (gave up after 3 attempts)',
    ]);
  });

  it('counts a request GitHub never answers as a time-out and retries it', async () => {
    await givenLink();
    const run = await givenBranchRun();
    await fake.setDown('hang');

    await dispatcher({ requestTimeoutMs: 300, leaseMs: 60_000 }).runOnce();

    const [delivery] = await store.listRunDeliveries(orgId, run.id);
    expect([delivery?.state, delivery?.lastError]).toEqual([
      'pending',
      'GitHub unreachable: timed out',
    ]);
    await fake.setDown(null);
  });

  it('fails the deliveries of a repository unlinked since, or whose credential does not open', async () => {
    await givenLink();
    const unlinked = await givenBranchRun();
    await store.deleteRepositoryLink(orgId, 'web');
    await dispatcher().runOnce();
    expect((await store.listRunDeliveries(orgId, unlinked.id))[0]?.lastError).toBe(
      'the repository is no longer linked to GitHub',
    );

    await givenLink();
    const sealed = await givenBranchRun();
    await dispatcher({
      decryptCredential: () => {
        throw new Error('bad tag');
      },
    }).runOnce();
    expect((await store.listRunDeliveries(orgId, sealed.id))[0]?.lastError).toBe(
      'the credential could not be decrypted (was SESSION_SECRET changed?)',
    );
    expect(fake.requests).toEqual([]);
  });

  it('hands the rest of a batch back, due at once, when its process stops', async () => {
    await givenLink();
    const run = await givenRun();
    let asked = 0;

    expect(await dispatcher().runOnce(() => ++asked > 1)).toBe(3);

    expect(fake.statuses).toHaveLength(1);
    const deliveries = await store.listRunDeliveries(orgId, run.id);
    expect(
      deliveries.map((each) => [each.state, each.leaseOwner, each.lastError, each.attempts]),
    ).toEqual([
      ['sent', null, null, 1],
      ['pending', null, 'not sent: the server stopped', 0],
      ['pending', null, 'not sent: the server stopped', 0],
    ]);
    expect(logLines).toEqual([
      'info [outbox] handed 2 claimed deliveries back (the server stopped)',
    ]);
    expect(await dispatcher({ owner: 'next-process' }).runOnce()).toBe(2);
  });

  it('records a sent delivery and hands the rest of its batch back once a stalled store answers, each sent once', async () => {
    await givenLink();
    const run = await givenRun();
    let stalled = false;
    const writes = new Set(['markDeliverySent', 'retryDelivery', 'releaseDeliveries']);
    const sender = dispatcher({
      store: stallable(
        (name) => stalled && writes.has(name),
        () => {
          stalled = true;
        },
      ),
    });

    expect(await sender.runOnce()).toBe(3);
    expect(fake.statuses.map((status) => status.context)).toEqual(['covgate/project']);
    await expect(sender.runOnce()).rejects.toThrow('database stalled');
    stalled = false;
    clock.advance(5_000);

    expect(await sender.runOnce()).toBe(2);

    const [project] = await store.listRunDeliveries(orgId, run.id);
    expect(fake.statuses.map((status) => status.context)).toEqual([
      'covgate/project',
      'covgate/patch',
    ]);
    expect(fake.commentsOf(GITHUB_REPO, 7)).toHaveLength(1);
    expect(
      (await store.listRunDeliveries(orgId, run.id)).map((each) => [
        each.kind,
        each.state,
        each.attempts,
        each.sentAt,
      ]),
    ).toEqual([
      ['status_project', 'sent', 1, START],
      ['status_patch', 'sent', 1, clock.now()],
      ['comment', 'sent', 1, clock.now()],
    ]);
    expect(logLines).toEqual([
      `error [outbox] delivery ${project?.id} not recorded: database stalled; recorded, and the other 2 claimed handed back, once the store answers`,
      'info [outbox] handed 2 claimed deliveries back (the store failed)',
    ]);
  });

  it('retries a delivery whose store read failed before the send as soon as the store answers', async () => {
    await givenLink();
    const run = await givenRun();
    let stalled = false;
    const sender = dispatcher({
      store: stallable(
        () => stalled,
        () => {
          stalled = true;
        },
      ),
    });

    await sender.runOnce();
    expect(fake.requests).toEqual([]);
    stalled = false;
    clock.advance(2_000);
    expect(await sender.runOnce()).toBe(3);

    expect(await states(run)).toEqual([
      ['status_project', 'sent'],
      ['status_patch', 'sent'],
      ['comment', 'sent'],
    ]);
    expect(fake.statuses).toHaveLength(2);
    const [project] = await store.listRunDeliveries(orgId, run.id);
    expect(project?.attempts).toBe(2);
    expect(logLines).toEqual([
      `error [outbox] delivery ${project?.id} not recorded: database stalled; recorded, and the other 2 claimed handed back, once the store answers`,
      `warn [outbox] delivery ${project?.id} (status_project of web, run ${run.id}) attempt 1 not sent (the store failed before the send: database stalled); next attempt at 2026-03-01T12:00:01.500Z`,
      'info [outbox] handed 2 claimed deliveries back (the store failed)',
    ]);
  });

  it('hands back the deliveries of a claim whose answer was lost, once the store answers', async () => {
    await givenLink();
    const run = await givenRun();
    let lost = true;
    const claimStored: Store = new Proxy(store, {
      get(target, name) {
        const value = Reflect.get(target, name) as unknown;
        if (typeof value !== 'function') return value;
        return async (...args: unknown[]) => {
          const answer = await Reflect.apply(value, target, args);
          if (name === 'claimDeliveries' && lost) throw new Error('deadline exceeded');
          return answer;
        };
      },
    });
    const sender = dispatcher({ store: claimStored });

    await expect(sender.runOnce()).rejects.toThrow('deadline exceeded');
    lost = false;

    expect(await sender.runOnce()).toBe(3);
    expect(
      (await store.listRunDeliveries(orgId, run.id)).map((each) => [each.state, each.attempts]),
    ).toEqual([
      ['sent', 1],
      ['sent', 1],
      ['sent', 1],
    ]);
    expect(logLines).toEqual(['info [outbox] handed 3 claimed deliveries back (the store failed)']);
  });

  it('sends as soon as it is nudged, and stops between polls', async () => {
    await givenLink();
    const worker = startOutboxWorker({
      store,
      logger,
      decryptCredential: () => TOKEN,
      allowPrivateCodeHosts: true,
      pollIntervalMs: 3_600_000,
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const run = await givenBranchRun();

    worker.nudge();
    await expect.poll(() => states(run), { timeout: 5_000 }).toEqual([['status_project', 'sent']]);
    await worker.stop();
  });
});
