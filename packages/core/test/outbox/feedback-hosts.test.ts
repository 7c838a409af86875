import {
  type CodeHostKind,
  createAuditLogger,
  createManualClock,
  createMemoryAuditSink,
  createMemoryStore,
  type ExecutionRecord,
  type ManualClock,
  type Store,
} from '@covgate/core';
import {
  buildExecution,
  buildOrganisation,
  type FakeAnswer,
  newPrefixedId,
  startFakeGiteaRest,
  startFakeGithubRest,
  startFakeGitlabRest,
} from '@covgate/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFeedbackSender } from '../../src/outbox/feedback-sender.js';
import { createOutboxDispatcher } from '../../src/outbox/outbox-worker.js';
import { errorMessage } from '../../src/outbox/rest-request.js';
import { rateLimitFromHeaders } from '../../src/outbox/retry-policy.js';
import { commentMarker, planRunDeliveries } from '../../src/outbox/run-feedback.js';
import { wholeSeconds } from '../../src/time/timestamp.js';

// The outbox's behaviour, run over the fake of each code host: what a merge or pull request
// shows after runs, pushes, races, rate limits, refusals and outages.

const START = new Date('2026-03-01T12:00:00Z');
const SHA = 'a'.repeat(40);
const TOKEN = 'host_token_0123456789abcdefSECRET';
const REQUEST = 7;

/** A status as a host shows it: its name, its state in the host's words, its description. */
type ShownStatus = [name: string, state: string, description: string | null];

/** What the suite needs of a fake code host. */
interface HostUnderTest {
  apiUrl: string;
  repository: string;
  statuses(): ShownStatus[];
  comments(): { id: number; body: string; edits: number }[];
  addComment(body: string): number;
  /** Moves a comment after every other (as if posted last). */
  moveToEnd(id: number): void;
  requests: string[];
  failNext(answer: FakeAnswer, count?: number): void;
  setDown(mode: 'refuse' | 'hang' | null): Promise<void>;
  close(): Promise<void>;
}

interface HostCase {
  kind: CodeHostKind;
  name: string;
  start(): Promise<HostUnderTest>;
  /** The host's state words for a passing and a failing status. */
  passed: string;
  failed: string;
  /** A rate-limited answer as the host documents it, and the wait it asks for (s). */
  rateLimit: (now: Date) => FakeAnswer;
  rateLimitWaitSeconds: number;
  /** The reasons of a refused token and of a repository the token cannot see. */
  refusedToken: string;
  hidden: string;
}

const hosts: HostCase[] = [
  {
    kind: 'github',
    name: 'GitHub',
    passed: 'success',
    failed: 'failure',
    async start() {
      const fake = await startFakeGithubRest();
      const repository = 'octo/widgets';
      fake.allowToken(TOKEN, [repository]);
      return {
        apiUrl: fake.apiUrl,
        repository,
        statuses: () => fake.statuses.map((each) => [each.context, each.state, each.description]),
        comments: () => fake.commentsOf(repository, REQUEST),
        addComment: (body) => fake.addComment(repository, REQUEST, body),
        moveToEnd(id) {
          const comment = fake.comments.get(id);
          fake.comments.delete(id);
          if (comment) fake.comments.set(id, comment);
        },
        requests: fake.requests,
        failNext: fake.failNext,
        setDown: fake.setDown,
        close: fake.close,
      };
    },
    rateLimit: () => ({
      status: 403,
      headers: { 'retry-after': '120' },
      body: { message: 'You have exceeded a secondary rate limit.' },
    }),
    rateLimitWaitSeconds: 120,
    refusedToken: 'GitHub refused the credential (401): Bad credentials',
    hidden:
      'GitHub repository, commit or pull request not found, or not visible to the credential (404): Not Found',
  },
  {
    kind: 'gitlab',
    name: 'GitLab',
    passed: 'success',
    failed: 'failed',
    async start() {
      const fake = await startFakeGitlabRest();
      const repository = 'octo/platform/widgets';
      fake.allowToken(TOKEN, [repository]);
      return {
        apiUrl: fake.apiUrl,
        repository,
        statuses: () => fake.statuses.map((each) => [each.name, each.state, each.description]),
        comments: () => fake.notesOf(repository, REQUEST),
        addComment: (body) => fake.addNote(repository, REQUEST, body),
        moveToEnd(id) {
          const note = fake.notes.get(id);
          fake.notes.delete(id);
          if (note) fake.notes.set(id, note);
        },
        requests: fake.requests,
        failNext: fake.failNext,
        setDown: fake.setDown,
        close: fake.close,
      };
    },
    // GitLab's documented throttle answer: 429 with Retry-After and RateLimit-* headers.
    rateLimit: (now) => ({
      status: 429,
      headers: {
        'retry-after': '90',
        'ratelimit-remaining': '0',
        'ratelimit-reset': String(now.getTime() / 1000 + 90),
      },
      body: { message: 'Retry later' },
    }),
    rateLimitWaitSeconds: 90,
    refusedToken: 'GitLab refused the token: revoked, expired or mistyped (401): 401 Unauthorized',
    hidden:
      'GitLab project, commit or merge request not found, or not visible to the token (404): 404 Project Not Found',
  },
  {
    kind: 'gitea',
    name: 'Gitea',
    passed: 'success',
    failed: 'failure',
    async start() {
      const fake = await startFakeGiteaRest();
      const repository = 'octo/widgets';
      fake.allowToken(TOKEN, [repository]);
      return {
        apiUrl: fake.apiUrl,
        repository,
        statuses: () => fake.statuses.map((each) => [each.context, each.state, each.description]),
        comments: () => fake.commentsOf(repository, REQUEST),
        addComment: (body) => fake.addComment(repository, REQUEST, body),
        moveToEnd(id) {
          const comment = fake.comments.get(id);
          fake.comments.delete(id);
          if (comment) fake.comments.set(id, comment);
        },
        requests: fake.requests,
        failNext: fake.failNext,
        setDown: fake.setDown,
        close: fake.close,
      };
    },
    // Gitea sets no limit of its own; a proxy in front of it answers 429 with Retry-After.
    rateLimit: () => ({
      status: 429,
      headers: { 'retry-after': '30' },
      body: { message: 'Too Many Requests' },
    }),
    rateLimitWaitSeconds: 30,
    refusedToken: 'Gitea refused the token (401): user does not exist [uid: 0, name: ]',
    hidden:
      'Gitea repository, commit or pull request not found, or not visible to the token (404): not found',
  },
];

describe.each(hosts)('the outbox towards $name', (host) => {
  let fake: HostUnderTest;
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
    fake = await host.start();
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

  const dispatcher = (retry: { maxAttempts?: number } = {}) =>
    createOutboxDispatcher({
      store,
      logger,
      audit: createAuditLogger(audit),
      decryptCredential: (link) => link.credential.replace('sealed:', ''),
      clock,
      random: () => 0.5,
      owner: 'test-sender',
      // Generous: a loaded machine must not turn a slow first request into a retry.
      requestTimeoutMs: 10_000,
      allowPrivateCodeHosts: true,
      retry,
    });

  const givenLink = async (overrides: { repository?: string; token?: string } = {}) => {
    await store.putRepositoryLink({
      orgId,
      repo: 'web',
      host: host.kind,
      repository: overrides.repository ?? fake.repository,
      apiUrl: fake.apiUrl,
      credential: `sealed:${overrides.token ?? TOKEN}`,
      credentialHint: '…CRET',
      createdBy: newPrefixedId('usr_'),
      createdAt: START,
      updatedAt: START,
    });
  };

  const givenRun = async (overrides: Partial<ExecutionRecord> = {}) => {
    const record = buildExecution({
      orgId,
      repo: 'web',
      branch: 'feature',
      commit: SHA,
      pullRequest: REQUEST,
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
      host: host.kind,
      repository: link?.repository ?? fake.repository,
      runUrl: `https://covgate.example.com/dashboard/repos/web/runs/${record.id}`,
      newId: () => newPrefixedId('dlv_'),
    });
    await store.insertExecution(record, null, deliveries);
    return record;
  };

  const states = async (record: ExecutionRecord) =>
    (await store.listRunDeliveries(orgId, record.id)).map((each) => [each.kind, each.state]);

  it('sets the project and patch statuses and one comment, auditing each use of the token', async () => {
    await givenLink();
    const run = await givenRun();

    expect(await dispatcher().runOnce()).toBe(3);

    expect(fake.statuses()).toEqual([
      ['covgate/project', host.passed, '84.13% (+0.25) pass'],
      ['covgate/patch', host.passed, 'patch 91.30% >= 80% pass'],
    ]);
    const comments = fake.comments();
    expect(comments).toHaveLength(1);
    expect(comments[0]?.body.split('\n').slice(0, 3)).toEqual([
      '<!-- covgate:pr-comment -->',
      `<!-- covgate:run ${run.id} -->`,
      '### covgate: **pass**',
    ]);
    expect(await states(run)).toEqual([
      ['status_project', 'sent'],
      ['status_patch', 'sent'],
      ['comment', 'sent'],
    ]);
    expect(audit.lines).toHaveLength(3);
    expect(logLines).toEqual([]);
  });

  it('edits the one comment on the next push, and sets the failing statuses', async () => {
    await givenLink();
    await givenRun();
    await dispatcher().runOnce();
    clock.advance(60_000);
    const second = await givenRun({ coverage: 70, delta: '-14.13', outcome: 'fail' });

    await dispatcher().runOnce();

    const comments = fake.comments();
    expect(comments).toHaveLength(1);
    expect(comments[0]?.edits).toBe(1);
    expect(comments[0]?.body).toContain(`<!-- covgate:run ${second.id} -->`);
    expect(fake.statuses().slice(2)).toEqual([
      ['covgate/project', host.failed, '70.00% (-14.13) fail'],
      ['covgate/patch', host.passed, 'patch 91.30% >= 80% pass'],
    ]);
    expect(await states(second)).toEqual([
      ['status_project', 'sent'],
      ['status_patch', 'sent'],
      ['comment', 'sent'],
    ]);
  });

  it('finds its comment behind 150 others and keeps it the only one', async () => {
    await givenLink();
    await givenRun();
    await dispatcher().runOnce();
    const [ours] = fake.comments();
    for (let index = 0; index < 150; index += 1) fake.addComment(`LGTM ${index}`);
    fake.moveToEnd(ours?.id ?? 0);
    clock.advance(60_000);
    const second = await givenRun({ coverage: 85 });

    await dispatcher().runOnce();

    const marked = fake.comments().filter((each) => each.body.includes('covgate:pr-comment'));
    expect(marked.map((each) => [each.id, each.edits])).toEqual([[ours?.id, 1]]);
    expect(marked[0]?.body).toContain(second.id);
  });

  it('keeps one comment, the newer run, when two processes create it at the same time', async () => {
    const sender = createFeedbackSender({ allowPrivateCodeHosts: true });
    const payload = (executionId: string) => ({
      host: host.kind,
      repository: fake.repository,
      pull_request: REQUEST,
      marker: commentMarker(null),
      execution_id: executionId,
      body: `${commentMarker(null)}\n<!-- covgate:run ${executionId} -->\nrun ${executionId}`,
    });
    const older = newPrefixedId('exe_');
    const newer = newPrefixedId('exe_');
    const target = { apiUrl: fake.apiUrl, token: TOKEN };

    const results = await Promise.all([
      sender.upsertComment(target, payload(older)),
      sender.upsertComment(target, payload(newer)),
    ]);

    expect(results.every((result) => result.ok)).toBe(true);
    expect(fake.comments().map((each) => each.body.split('\n')[2])).toEqual([`run ${newer}`]);
  });

  it("waits out the host's rate limit as its headers say, holding the token's other deliveries", async () => {
    await givenLink();
    const run = await givenRun();
    fake.failNext(host.rateLimit(START));

    await dispatcher().runOnce();

    const waitUntil = new Date(START.getTime() + host.rateLimitWaitSeconds * 1000);
    const deliveries = await store.listRunDeliveries(orgId, run.id);
    expect(deliveries.map((each) => [each.state, each.nextAttemptAt, each.attempts])).toEqual([
      ['pending', waitUntil, 0],
      ['pending', waitUntil, 0],
      ['pending', waitUntil, 0],
    ]);
    expect(deliveries[0]?.lastError).toBe(
      `${host.name} rate limit (${host.rateLimit(START).status}): waiting until ${waitUntil.toISOString()}`,
    );
    expect(fake.requests).toHaveLength(1);
    clock.advance(host.rateLimitWaitSeconds * 1000);
    expect(await dispatcher().runOnce()).toBe(3);
    expect(await states(run)).toEqual([
      ['status_project', 'sent'],
      ['status_patch', 'sent'],
      ['comment', 'sent'],
    ]);
  });

  it("fails at once on a refused token (401) and a repository it cannot see (404), with the host's reason and no token", async () => {
    await givenLink({ token: 'revoked_REVOKED_token' });
    const refused = await givenRun({ pullRequest: null, patchCovered: null });
    await dispatcher().runOnce();
    await givenLink({ repository: 'octo/hidden' });
    const hidden = await givenRun({ pullRequest: null, patchCovered: null });

    await dispatcher().runOnce();

    const [first] = await store.listRunDeliveries(orgId, refused.id);
    expect([first?.state, first?.lastStatus, first?.lastError]).toEqual([
      'failed',
      401,
      host.refusedToken,
    ]);
    const [second] = await store.listRunDeliveries(orgId, hidden.id);
    expect([second?.state, second?.lastStatus, second?.lastError]).toEqual([
      'failed',
      404,
      host.hidden,
    ]);
    expect(logLines.join('\n')).not.toContain('REVOKED');
  });

  it('retries while the host refuses connections and sends once it is back', async () => {
    await givenLink();
    const run = await givenRun({ pullRequest: null, patchCovered: null });
    await fake.setDown('refuse');

    await dispatcher().runOnce();
    const [waiting] = await store.listRunDeliveries(orgId, run.id);
    expect([waiting?.state, waiting?.lastError]).toEqual([
      'pending',
      `${host.name} unreachable: ECONNREFUSED`,
    ]);

    await fake.setDown(null);
    clock.advance(2_000);
    expect(await dispatcher().runOnce()).toBe(1);
    expect(await states(run)).toEqual([['status_project', 'sent']]);
    expect(fake.statuses()).toHaveLength(1);
  });
});

describe('the GitLab host', () => {
  it('names the project by its URL-encoded path and reads the notes page by page (x-next-page)', async () => {
    const fake = await startFakeGitlabRest();
    try {
      const project = 'octo/platform/widgets';
      fake.allowToken(TOKEN, [project]);
      for (let index = 0; index < 120; index += 1) fake.addNote(project, REQUEST, `note ${index}`);
      const sender = createFeedbackSender({ allowPrivateCodeHosts: true });
      const target = { apiUrl: fake.apiUrl, token: TOKEN };
      const where = { host: 'gitlab' as const, repository: project };

      const status = await sender.setStatus(target, {
        ...where,
        sha: SHA,
        state: 'error',
        context: 'covgate/project (api)',
        description: 'x',
        target_url: null,
      });
      const comment = await sender.upsertComment(target, {
        ...where,
        pull_request: REQUEST,
        marker: commentMarker(null),
        execution_id: 'exe_1',
        body: `${commentMarker(null)}\nfirst`,
      });

      expect([status, comment]).toEqual([
        { ok: true, detail: 'status set' },
        { ok: true, detail: 'comment created' },
      ]);
      expect(fake.statuses).toEqual([
        {
          project,
          sha: SHA,
          state: 'failed',
          name: 'covgate/project (api)',
          description: 'x',
          target_url: null,
        },
      ]);
      const encoded = '/api/v4/projects/octo%2Fplatform%2Fwidgets';
      expect(fake.requests).toEqual([
        `POST ${encoded}/statuses/${SHA}`,
        `GET ${encoded}/merge_requests/7/notes`,
        `GET ${encoded}/merge_requests/7/notes`,
        `POST ${encoded}/merge_requests/7/notes`,
        `GET ${encoded}/merge_requests/7/notes`,
        `GET ${encoded}/merge_requests/7/notes`,
      ]);
    } finally {
      await fake.close();
    }
  });
});

describe('rate-limit headers of every host', () => {
  const now = new Date('2026-03-01T12:00:00Z');
  const at = (status: number, headers: Record<string, string>) =>
    rateLimitFromHeaders({ status, headers }, now)?.toISOString() ?? null;

  it('reads Retry-After as seconds or an HTTP date, then x-ratelimit-reset, then RateLimit-Reset', () => {
    expect(at(429, { 'retry-after': '15' })).toBe('2026-03-01T12:00:15.000Z');
    expect(at(429, { 'retry-after': 'Sun, 01 Mar 2026 12:05:00 GMT' })).toBe(
      '2026-03-01T12:05:00.000Z',
    );
    expect(
      at(403, {
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(now.getTime() / 1000 + 60),
      }),
    ).toBe('2026-03-01T12:01:00.000Z');
    // GitLab: epoch seconds; the IETF draft: seconds from now.
    expect(at(429, { 'ratelimit-reset': String(now.getTime() / 1000 + 30) })).toBe(
      '2026-03-01T12:00:30.000Z',
    );
    expect(at(429, { 'ratelimit-reset': '45' })).toBe('2026-03-01T12:00:45.000Z');
    expect(at(200, { 'ratelimit-remaining': '10', 'ratelimit-reset': '45' })).toBeNull();
    expect(at(429, {})).toBeNull();
  });

  it("reads GitLab's validation errors and Gitea's messages into one line", () => {
    expect(errorMessage({ message: { description: ['is too long'], state: ['is invalid'] } })).toBe(
      'description is too long; state is invalid',
    );
    expect(errorMessage({ error: 'state does not have a valid value' })).toBe(
      'state does not have a valid value',
    );
    expect(errorMessage({ message: 'not found', url: 'https://g.example/api/swagger' })).toBe(
      'not found',
    );
    expect(errorMessage('<html>')).toBeUndefined();
  });
});
