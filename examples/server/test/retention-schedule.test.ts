import { createMemoryStore, type Store } from '@covgate/core';
import { buildExecution, buildOrganisation } from '@covgate/testing';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { redisRetentionLock } from '../src/redis-retention-lock.js';
import type { RetentionLock } from '../src/retention-lock.js';
import {
  type RetentionSchedule,
  startRetentionFor,
  startRetentionSchedule,
} from '../src/retention-schedule.js';

const NOW = new Date('2026-06-01T00:00:00Z');
const policy = { days: 30, runsPerBranch: null };
const redisUrl = process.env.COVGATE_REDIS_URL;

/** A repository with runs 90, 60 and 1 day old, each with a list and line data. */
async function givenOldRuns(store: Store) {
  const org = buildOrganisation();
  await store.createOrganisation(org);
  const runs = [];
  for (const age of [90, 60, 1]) {
    const createdAt = new Date(NOW.getTime() - age * 86_400_000);
    const record = buildExecution({ orgId: org.id, repo: 'api', createdAt, fileCount: 1 });
    await store.insertExecution(record, new Uint8Array(10), [], new Uint8Array(20));
    runs.push(record);
  }
  return runs;
}

/** Resolves when `lines` holds a line matching `pattern`. */
async function until(lines: string[], pattern: RegExp): Promise<void> {
  for (let waited = 0; waited < 5_000; waited += 10) {
    if (lines.some((line) => pattern.test(line))) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`no line matched ${pattern}: ${JSON.stringify(lines)}`);
}

describe('the server’s retention schedule', () => {
  let schedule: RetentionSchedule | undefined;
  afterEach(async () => {
    await schedule?.stop();
    schedule = undefined;
  });

  it('prunes by the policy at each turn and logs what went', async () => {
    const store = createMemoryStore();
    const runs = await givenOldRuns(store);
    const lines: string[] = [];
    const logger = {
      info: (line: string) => lines.push(line),
      error: (line: string) => lines.push(line),
    };

    schedule = startRetentionSchedule(store, { policy, intervalMs: 20, logger, now: () => NOW });
    await until(lines, /^\[retention\] pruned/);

    expect(lines[0]).toBe(
      '[retention] pruned the detail of 2 runs: 4 rows, 60 bytes, in 1 repositories',
    );
    const left = await Promise.all(runs.map((run) => store.findExecutionFiles(run.orgId, run.id)));
    expect(left.map((files) => files !== null)).toEqual([false, false, true]);
  });

  it('skips its turn while another process holds the lock, and says so', async () => {
    const store = createMemoryStore();
    await givenOldRuns(store);
    const lines: string[] = [];
    const logger = {
      info: (line: string) => lines.push(line),
      error: (line: string) => lines.push(line),
    };
    const held: RetentionLock = { runAlone: async () => null, dispose: async () => {} };

    schedule = startRetentionSchedule(store, {
      policy,
      intervalMs: 20,
      logger,
      now: () => NOW,
      lock: held,
    });
    await until(lines, /skipped/);

    expect(lines[0]).toBe('[retention] another process is pruning: pass skipped');
    expect(lines.some((line) => line.includes('pruned the detail'))).toBe(false);
  });

  it('logs a failed pass and tries again at the next turn', async () => {
    const store = createMemoryStore();
    let calls = 0;
    const failing = {
      ...store,
      listRepositoryKeys: async (...args: Parameters<Store['listRepositoryKeys']>) => {
        calls += 1;
        if (calls === 1) throw new Error('database stalled');
        return store.listRepositoryKeys(...args);
      },
    };
    const lines: string[] = [];
    const logger = {
      info: (line: string) => lines.push(line),
      error: (line: string) => lines.push(line),
    };

    schedule = startRetentionSchedule(failing, { policy, intervalMs: 20, logger, now: () => NOW });
    await until(lines, /failed/);
    for (let waited = 0; calls < 2 && waited < 5_000; waited += 10) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }

    expect(lines[0]).toBe('[retention] pass failed: database stalled');
    expect(calls).toBeGreaterThanOrEqual(2);
  });
});

describe('the server starts retention', () => {
  const logger = pino({ level: 'silent' });

  it('only with a setting and an interval above 0', async () => {
    const store = createMemoryStore();
    expect(await startRetentionFor(loadConfig({}), store, logger)).toBeUndefined();
    expect(
      await startRetentionFor(
        loadConfig({ RETENTION_DAYS: '30', RETENTION_INTERVAL_MINUTES: '0' }),
        store,
        logger,
      ),
    ).toBeUndefined();
    const started = await startRetentionFor(loadConfig({ RETENTION_DAYS: '30' }), store, logger);
    expect(started).toBeDefined();
    await started?.stop();
  });
});

describe.skipIf(!redisUrl && process.env.COVGATE_REQUIRE_REDIS !== '1')(
  'the retention lock in Redis',
  () => {
    it('lets one process prune at a time: the other skips while it holds the lock', async () => {
      if (!redisUrl) throw new Error('COVGATE_REQUIRE_REDIS=1 but COVGATE_REDIS_URL is unset');
      const errors: string[] = [];
      const logger = { error: (line: string) => errors.push(line) };
      const first = redisRetentionLock(redisUrl, logger);
      const second = redisRetentionLock(redisUrl, logger);
      try {
        let release: () => void = () => {};
        let started: () => void = () => {};
        const holdsLock = new Promise<void>((resolve) => {
          started = resolve;
        });
        const holding = first.runAlone(() => {
          started();
          return new Promise<string>((resolve) => {
            release = () => resolve('first');
          });
        });
        await holdsLock;
        expect(await second.runAlone(async () => 'second')).toBeNull();
        release();
        expect(await holding).toBe('first');
        expect(await second.runAlone(async () => 'second')).toBe('second');
        expect(errors).toEqual([]);
      } finally {
        await first.dispose();
        await second.dispose();
      }
    });
  },
);
