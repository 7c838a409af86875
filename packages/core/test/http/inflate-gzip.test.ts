import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { INFLATE_CHUNK_BYTES, inflateGzip } from '../../src/http/inflate-gzip.js';
import { createInflationBudget, type InflationClaim } from '../../src/http/inflation-budget.js';

const MIB = 1024 * 1024;

/** A claim that records each take and allows `allowed` bytes in all. */
function recordingClaim(allowed = Number.POSITIVE_INFINITY) {
  const takes: number[] = [];
  let taken = 0;
  const claim: InflationClaim = {
    take(bytes) {
      takes.push(bytes);
      if (taken + bytes > allowed) return false;
      taken += bytes;
      return true;
    },
    release() {},
  };
  return { claim, takes, taken: () => taken };
}

/** `members` gzip members of 16 MiB of zeros each, one after the other: a bomb of ~1 KiB each. */
function bomb(members: number): Uint8Array {
  const member = gzipSync(Buffer.alloc(16 * MIB), { level: 9 });
  return Buffer.concat(Array.from({ length: members }, () => member));
}

describe('inflating a gzip request body', () => {
  it('gives the whole body back, every chunk taken from the claim first', async () => {
    const text = JSON.stringify({
      files: Array.from({ length: 20_000 }, (_, i) => `src/f${i}.ts`),
    });
    const recorded = recordingClaim();
    const result = await inflateGzip(gzipSync(text), MIB, recorded.claim);
    expect(result.ok && Buffer.from(result.bytes).toString('utf8')).toBe(text);
    expect(recorded.taken()).toBe(Buffer.byteLength(text));
    expect(recorded.takes.length).toBeGreaterThan(1);
    expect(Math.max(...recorded.takes)).toBeLessThanOrEqual(INFLATE_CHUNK_BYTES);
    expect(INFLATE_CHUNK_BYTES).toBe(64 * 1024);
  });

  it('accepts output of exactly the limit and refuses one byte more as too large', async () => {
    const body = Buffer.alloc(100_000, 'a');
    const atLimit = await inflateGzip(gzipSync(body), 100_000, recordingClaim().claim);
    expect(atLimit).toEqual({ ok: true, bytes: body });
    const recorded = recordingClaim();
    const over = await inflateGzip(gzipSync(body), 99_999, recorded.claim);
    expect(over).toEqual({ ok: false, refusal: 'too-large' });
    expect(recorded.taken()).toBeLessThanOrEqual(99_999);
  });

  it('stops a 1 GiB bomb at its limit: no more than the limit is ever taken', async () => {
    const recorded = recordingClaim();
    const result = await inflateGzip(bomb(64), 16 * MIB, recorded.claim);
    expect(result).toEqual({ ok: false, refusal: 'too-large' });
    expect(recorded.taken()).toBeLessThanOrEqual(16 * MIB);
    expect(recorded.taken()).toBeGreaterThan(16 * MIB - INFLATE_CHUNK_BYTES);
  });

  it('stops as soon as the shared budget refuses a chunk', async () => {
    const recorded = recordingClaim(MIB);
    const result = await inflateGzip(bomb(1), 16 * MIB, recorded.claim);
    expect(result).toEqual({ ok: false, refusal: 'over-budget' });
    expect(recorded.taken()).toBeLessThanOrEqual(MIB);
    // The refused chunk is the last one asked for.
    expect(recorded.takes.length).toBeLessThanOrEqual(MIB / INFLATE_CHUNK_BYTES + 2);
  });

  it('refuses a body as too large once past its limit, whatever damage follows, taking no more', async () => {
    const damaged = Buffer.concat([gzipSync(Buffer.alloc(300_000, 'c')), Buffer.from('garbage')]);
    const recorded = recordingClaim();
    expect(await inflateGzip(damaged, 100_000, recorded.claim)).toEqual({
      ok: false,
      refusal: 'too-large',
    });
    expect(recorded.taken()).toBeLessThanOrEqual(100_000);
    expect(recorded.takes.length).toBe(Math.floor(100_000 / INFLATE_CHUNK_BYTES));
    // Within the limit, the same damage is what refuses it.
    expect(await inflateGzip(damaged, MIB, recordingClaim().claim)).toEqual({
      ok: false,
      refusal: 'malformed',
    });
  });

  it('calls a body that is not gzip, or is cut short, malformed', async () => {
    expect(await inflateGzip(Buffer.from('{"not":"gzip"}'), MIB, recordingClaim().claim)).toEqual({
      ok: false,
      refusal: 'malformed',
    });
    const whole = gzipSync(Buffer.alloc(10_000, 'b'));
    const cut = whole.subarray(0, whole.byteLength - 6);
    expect(await inflateGzip(cut, MIB, recordingClaim().claim)).toEqual({
      ok: false,
      refusal: 'malformed',
    });
  });

  it('leaves what it took held until the claim is released', async () => {
    const budget = createInflationBudget({ maxBytes: MIB });
    const claim = budget.claim();
    const result = await inflateGzip(gzipSync(Buffer.alloc(300_000)), MIB, claim);
    expect(result.ok).toBe(true);
    expect(budget.bytesInUse()).toBe(300_000);
    claim.release();
    expect(budget.bytesInUse()).toBe(0);
  });
});
