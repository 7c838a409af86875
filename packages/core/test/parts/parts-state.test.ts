import { describe, expect, it } from 'vitest';
import { mergeCommitReport, type PartFileLines } from '../../src/executions/commit-report.js';
import { encodeLineData, encodeRanges } from '../../src/executions/line-data.js';
import {
  expectedFromBase,
  incompleteReason,
  type PartsState,
  parseExpectedParts,
  parseParts,
  partsProgress,
  partsToCarry,
  partsToJson,
  pendingText,
  serialiseParts,
  settleParts,
} from '../../src/executions/parts.js';
import { decodeRunLines, encodeRunLines, runLinesText } from '../../src/executions/run-lines.js';

const DEADLINE = new Date('2026-11-29T10:00:00Z');

function state(overrides: Partial<PartsState> = {}): PartsState {
  return {
    received: ['unit'],
    carried: [],
    carryforward: null,
    rules: null,
    expected: { names: ['integration', 'unit'] },
    expectedSource: 'run',
    closed: false,
    deadline: DEADLINE,
    revision: 1,
    reason: null,
    verdict: 'pass',
    ...overrides,
  };
}

const before = new Date(DEADLINE.getTime() - 1000);

const CARRIED = {
  part: 'integration',
  fromCommit: 'abc1234def'.padEnd(40, '0'),
  fromRun: 'exe_source',
  receivedAt: new Date(DEADLINE.getTime() - 172_800_000),
  ageSeconds: 172_800,
};

describe('a report by its parts', () => {
  it('is complete when every expected name arrived, and says what is missing before', () => {
    expect(partsProgress(state())).toEqual({
      complete: false,
      missing: ['integration'],
      missingCount: 1,
    });
    expect(partsProgress(state({ received: ['integration', 'unit'] }))).toEqual({
      complete: true,
      missing: [],
      missingCount: 0,
    });
  });

  it('counts arrivals only when it expects a count', () => {
    const counted = state({ expected: { count: 3 }, received: ['shard-1-of-3', 'shard-3-of-3'] });
    expect(partsProgress(counted)).toEqual({ complete: false, missing: [], missingCount: 1 });
    expect(pendingText(counted)).toBe('2 of 3 parts: missing 1 of 3 parts');
    expect(incompleteReason(counted)).toBe('incomplete: missing 1 of 3 parts');
  });

  it('waits for finish when nothing says what to expect', () => {
    const open = state({ expected: null, expectedSource: null });
    expect(partsProgress(open).complete).toBe(false);
    expect(pendingText(open)).toBe('1 part, waiting for finish');
    expect(partsProgress({ ...open, closed: true }).complete).toBe(true);
  });

  it('describes a pending report for a status: 2 of 3 parts, missing integration', () => {
    const two = state({
      expected: { names: ['integration', 'node-22', 'unit'] },
      received: ['node-22', 'unit'],
    });
    expect(pendingText(two)).toBe('2 of 3 parts: missing integration');
  });

  it('is pending before its deadline, fails with the reason at it, and passes once complete', () => {
    expect(settleParts(state(), before).outcome).toBe('pending');
    const late = settleParts(state(), DEADLINE);
    expect(late.outcome).toBe('fail');
    expect(late.parts.reason).toBe('incomplete: missing integration');
    const complete = settleParts(
      state({ received: ['integration', 'unit'], verdict: 'warn' }),
      DEADLINE,
    );
    expect(complete).toEqual({
      outcome: 'warn',
      parts: state({ received: ['integration', 'unit'], verdict: 'warn' }),
    });
  });

  it('fails at once when finish closed it without an expected part', () => {
    const closed = settleParts(state({ closed: true }), before);
    expect(closed.outcome).toBe('fail');
    expect(closed.parts.reason).toBe('incomplete: missing integration');
  });

  it('shows on the wire what it has, expects and lacks', () => {
    expect(partsToJson(state())).toEqual({
      received: ['unit'],
      carried: [],
      expected: ['integration', 'unit'],
      expected_source: 'run',
      missing: ['integration'],
      missing_count: 1,
      complete: false,
      closed: false,
      deadline: '2026-11-29T10:00:00Z',
      reason: null,
    });
  });

  it('is stored as text and read back the same', () => {
    const stored = state({ expected: { count: 4 }, reason: 'incomplete: missing 3 of 4 parts' });
    expect(parseParts(serialiseParts(stored))).toEqual(stored);
    const judged = state({
      carried: [CARRIED],
      carryforward: { all: true },
      rules: {
        warnThreshold: 0.5,
        failThreshold: 1,
        projectTarget: 70,
        projectInformational: true,
        patchInformational: false,
      },
    });
    expect(parseParts(serialiseParts(judged))).toEqual(judged);
  });

  it('reads a report stored before carryforward as carrying nothing', () => {
    const { carried, carryforward, rules, ...older } = JSON.parse(serialiseParts(state()));
    expect(parseParts(JSON.stringify(older))).toEqual(state());
  });

  it('counts a carried part as present, and names it on the wire', () => {
    const judged = state({ carried: [CARRIED], closed: true });
    expect(partsProgress(judged)).toEqual({ complete: true, missing: [], missingCount: 0 });
    expect(settleParts(judged, before)).toEqual({ outcome: 'pass', parts: judged });
    expect(partsToJson(judged)).toMatchObject({
      received: ['unit'],
      carried: [
        {
          part: 'integration',
          from_commit: 'abc1234def'.padEnd(40, '0'),
          from_run: 'exe_source',
          age_seconds: 172_800,
        },
      ],
      missing: [],
      complete: true,
    });
    expect(expectedFromBase(judged)).toEqual({ names: ['integration', 'unit'] });
  });

  it('carries missing names only once the report is judged without them', () => {
    const all = { all: true } as const;
    expect(partsToCarry(state(), before, all)).toEqual([]);
    expect(partsToCarry(state(), DEADLINE, all)).toEqual(['integration']);
    expect(partsToCarry(state({ closed: true }), before, all)).toEqual(['integration']);
    // The newest part's own list wins over the repository's.
    const own = state({ closed: true, carryforward: { names: ['e2e'] } });
    expect(partsToCarry(own, before, all)).toEqual([]);
    expect(partsToCarry(state({ closed: true }), before, { names: ['e2e'] })).toEqual([]);
    expect(partsToCarry(state({ closed: true }), before, null)).toEqual([]);
    // A count names no part to carry.
    expect(partsToCarry(state({ closed: true, expected: { count: 2 } }), before, all)).toEqual([]);
    expect(partsToCarry(state({ closed: true, carried: [CARRIED] }), before, all)).toEqual([]);
  });

  it('expects the parts of the base branch only from a complete report', () => {
    expect(expectedFromBase(state({ received: ['integration', 'unit'] }))).toEqual({
      names: ['integration', 'unit'],
    });
    expect(expectedFromBase(state())).toBeNull();
    expect(expectedFromBase(null)).toBeNull();
  });

  it.each([
    [4, { count: 4 }],
    [['unit', 'integration'], { names: ['integration', 'unit'] }],
    [0, null],
    [1.5, null],
    [['unit', 'unit'], null],
    [['bad name'], null],
    [[], null],
    ['unit', null],
  ])('reads expected parts %j as %j', (value, expected) => {
    expect(parseExpectedParts(value)).toEqual(expected);
  });
});

/** A file's line data from its coverable and covered lines, with changed lines. */
function file(
  path: string,
  coverable: number[],
  covered: number[],
  changed: number[] | null = null,
): PartFileLines {
  return {
    path,
    lines: encodeLineData({ coverable, covered }),
    patch: changed === null ? null : encodeRanges(changed),
  };
}

describe('merging the parts of a commit', () => {
  const unit = [file('src/a.ts', [1, 2, 3, 4], [1, 2], [2, 3]), file('src/b.ts', [1, 2], [1])];
  const integration = [file('src/a.ts', [1, 2, 3, 4], [3], [2, 3]), file('src/c.ts', [5], [])];

  it('covers a line any part covers, counts a line once, and judges the patch on the merge', () => {
    const merged = mergeCommitReport([unit, integration]);
    expect(merged.files).toEqual([
      { path: 'src/a.ts', covered: 3, coverable: 4, patchCovered: 2, patchCoverable: 2 },
      { path: 'src/b.ts', covered: 1, coverable: 2 },
      { path: 'src/c.ts', covered: 0, coverable: 1 },
    ]);
    expect(merged.covered).toBe(4);
    expect(merged.coverable).toBe(7);
    expect(merged.coverage).toBe(57.14);
    expect(merged.patch).toEqual({ covered: 2, coverable: 2 });
  });

  it('gives the same report in any order of the parts', () => {
    expect(mergeCommitReport([integration, unit])).toEqual(mergeCommitReport([unit, integration]));
  });

  it('counts a carried part on every line but the changed ones', () => {
    const merged = mergeCommitReport([unit], [integration]);
    // integration's a.ts 3 is a changed line: not covered by a run of the code before it.
    expect(merged.files).toEqual([
      { path: 'src/a.ts', covered: 2, coverable: 4, patchCovered: 1, patchCoverable: 2 },
      { path: 'src/b.ts', covered: 1, coverable: 2 },
      { path: 'src/c.ts', covered: 0, coverable: 1 },
    ]);
    expect(merged.coverage).toBe(42.85);
    expect(merged.patch).toEqual({ covered: 1, coverable: 2 });
    const alone = mergeCommitReport([[file('src/a.ts', [1, 2, 3, 4], [1, 2])]], [integration]);
    expect(alone.files[0]).toEqual({ path: 'src/a.ts', covered: 3, coverable: 4 });
    expect(merged.lines.find((lines) => lines.path === 'src/c.ts')?.patch).toBeNull();
  });

  it('has no patch when no part sent changed lines, and 0 % with no line', () => {
    expect(mergeCommitReport([[file('a', [1], [1])]]).patch).toBeNull();
    expect(mergeCommitReport([[file('a', [], [])]]).coverage).toBe(0);
  });

  it('stores a part upload in the run lines form and reads it back', async () => {
    expect(await decodeRunLines(await encodeRunLines(runLinesText(unit)))).toEqual(unit);
  });
});
