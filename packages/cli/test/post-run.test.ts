import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import type { ExecutionInput } from '@covgate/client';
import { createTestApi } from '@covgate/testing';
import { describe, expect, it } from 'vitest';
import { postRun } from '../src/gate/post-run.js';
import type { Io } from '../src/io.js';

/** mulberry32: the same files on every run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** `count` files with 40 ranges of random lines each: line data of about 1.5 MiB gzip for 20 000. */
function filesWithLines(count: number) {
  const next = random(37);
  const pick = (low: number, high: number) => low + Math.floor(next() * (high - low + 1));
  return Array.from({ length: count }, (_, index) => {
    const coverable: number[] = [];
    let total = 0;
    for (let range = 0; range < 40; range++) {
      const length = pick(1, 8);
      coverable.push(range === 0 ? pick(1, 9) : pick(2, 9), length);
      total += length;
    }
    const covered: number[] = [];
    let coveredCount = 0;
    for (let left = total, run = 0; left > 0; run++) {
      const size = Math.min(left, pick(0, 12));
      covered.push(size);
      if (run % 2 === 0) coveredCount += size;
      left -= size;
    }
    return {
      path: `src/module-${String(index).padStart(5, '0')}/file.ts`,
      covered: coveredCount,
      coverable: total,
      lines: { coverable, covered },
    };
  });
}

function ioWith(fetch: typeof globalThis.fetch): Io & { err: () => string } {
  let stderr = '';
  return {
    env: {},
    cwd: '/',
    stdout: { write: () => {} },
    stderr: { write: (s: string) => (stderr += s) },
    stdin: Readable.from([]),
    fetch,
    err: () => stderr,
  };
}

describe('a run over a service’s own ingest limit', () => {
  const run = { repo: 'web', branch: 'main', coverage: 50 };

  async function serviceOf1MiB() {
    const service = createTestApi({ ingestBodyBytes: 1024 * 1024 });
    const org = await service.createOrganisation();
    const { secret } = await service.insertToken(org);
    const bodies: number[] = [];
    const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      bodies.push((await request.clone().arrayBuffer()).byteLength);
      return service.api.handle(request);
    }) as typeof globalThis.fetch;
    return { service, secret, fetch, bodies };
  }

  it('is sent again without its line data when the service answers 413, and recorded', async () => {
    const { secret, fetch, bodies } = await serviceOf1MiB();
    const body: ExecutionInput = { ...run, files: filesWithLines(20_000) };
    const wire = gzipSync(JSON.stringify(body)).byteLength;
    // Under the CLI's 4 MiB, over this service's 1 MiB.
    expect(wire).toBeGreaterThan(1024 * 1024);
    expect(wire).toBeLessThan(4 * 1024 * 1024);
    const io = ioWith(fetch);
    const posted = await postRun(
      {
        url: 'http://covgate.test',
        token: secret,
        version: '0.0.0',
        body,
        idempotencyKey: 'run-1',
      },
      io,
    );
    expect(posted).toMatchObject({ record: { repo: 'web', coverage: 50, file_count: 20_000 } });
    expect(io.err()).toBe(
      "covgate: warning: the service refused the run with its files' line data as too large (413); sent again without it, their counts only\n",
    );
    expect(bodies).toHaveLength(2);
    expect(bodies[1]).toBeLessThan(1024 * 1024);
  });

  it('fails a part instead: the service merges parts line by line', async () => {
    const { secret, fetch, bodies } = await serviceOf1MiB();
    const body: ExecutionInput = {
      ...run,
      commit: 'abcdef1',
      part: 'shard-1',
      files: filesWithLines(20_000),
    };
    const io = ioWith(fetch);
    await expect(
      postRun(
        {
          url: 'http://covgate.test',
          token: secret,
          version: '0.0.0',
          body,
          idempotencyKey: 'run-1',
        },
        io,
      ),
    ).rejects.toMatchObject({
      message:
        "the service at http://covgate.test refused part shard-1 as too large (413): a part needs its files' line data, which is over the service's ingest limit; raise it there (INGEST_MAX_BODY_MIB, up to 16) or split the part",
      exitCode: 3,
    });
    expect(bodies).toHaveLength(1);
    expect(io.err()).toBe('');
  });
});
