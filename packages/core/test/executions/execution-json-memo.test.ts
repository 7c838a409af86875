import { buildExecution } from '@covgate/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { executionToJson } from '../../src/executions/execution-json.js';
import { ExecutionJsonMemo } from '../../src/executions/execution-json-memo.js';
import { EXECUTION_FIELDS, type ExecutionRecord } from '../../src/storage/records/executions.js';

function record(overrides: Partial<ExecutionRecord> = {}): ExecutionRecord {
  return buildExecution({
    id: 'exe_01jdxk7p3q8m2n4r6t8v0w2y4z',
    orgId: 'org_01jdxk7p3q8m2n4r6t8v0w2y4z',
    repo: 'web',
    delta: '+1.25',
    coverage: 81.5,
    createdAt: new Date('2026-11-24T10:15:30Z'),
    baselineId: 'exe_01jdxk7p3q8m2n4r6t8v0w2y40',
    baselineCoverage: 80.25,
    baselineCreatedAt: new Date('2026-11-24T09:00:00Z'),
    baselineSelection: 'latest',
    ...overrides,
  });
}

const EXPECTED_TEXT =
  '{"id":"exe_01jdxk7p3q8m2n4r6t8v0w2y4z","repo":"web","branch":"main","outcome":"pass","delta":"+1.25","coverage":81.5,"commit":null,"created_at":"2026-11-24T10:15:30Z","baseline":{"id":"exe_01jdxk7p3q8m2n4r6t8v0w2y40","coverage":80.25,"branch":"main","commit":null,"created_at":"2026-11-24T09:00:00Z"}}';

const NO_BASELINE = {
  baselineId: null,
  baselineCoverage: null,
  baselineCommit: null,
  baselineCreatedAt: null,
} as const;

describe('ExecutionJsonMemo', () => {
  it('makes the text JSON.stringify makes of the wire form', () => {
    const memo = new ExecutionJsonMemo();
    expect(memo.textOf(record())).toBe(EXPECTED_TEXT);
    expect(memo.textOf(record())).toBe(EXPECTED_TEXT);
    expect(memo.size).toBe(1);
  });

  it('shows baseline null for a run without one, and no baseline for a record from before', () => {
    const memo = new ExecutionJsonMemo();
    const first = record({ delta: '0.00', ...NO_BASELINE });
    expect(memo.textOf(first)).toBe(
      '{"id":"exe_01jdxk7p3q8m2n4r6t8v0w2y4z","repo":"web","branch":"main","outcome":"pass","delta":"0.00","coverage":81.5,"commit":null,"created_at":"2026-11-24T10:15:30Z","baseline":null}',
    );
    const unknown = record({ id: 'exe_old', delta: '0.00', baseBranch: null, ...NO_BASELINE });
    expect(memo.textOf(unknown)).toBe(
      '{"id":"exe_old","repo":"web","branch":"main","outcome":"pass","delta":"0.00","coverage":81.5,"commit":null,"created_at":"2026-11-24T10:15:30Z"}',
    );
  });

  it('joins an array as JSON.stringify does, the empty one included', () => {
    const memo = new ExecutionJsonMemo();
    const second = record({ id: 'exe_01jdxk7p3q8m2n4r6t8v0w2y50', commit: 'abc1234' });
    expect(memo.arrayText([])).toBe('[]');
    expect(memo.arrayText([record()])).toBe(`[${EXPECTED_TEXT}]`);
    expect(memo.arrayText([record(), second])).toBe(
      JSON.stringify([executionToJson(record()), executionToJson(second)]),
    );
  });

  it.each<[string, Partial<ExecutionRecord>]>([
    ['repo', { repo: 'api' }],
    ['branch', { branch: 'dev' }],
    ['outcome', { outcome: 'fail' }],
    ['delta', { delta: '-0.40' }],
    ['coverage', { coverage: 81.51 }],
    ['commit', { commit: 'deadbeef' }],
    ['created_at', { createdAt: new Date('2026-11-24T10:15:31Z') }],
    ['base branch', { baseBranch: 'develop' }],
    ['base branch (unknown)', { baseBranch: null }],
    ['baseline', NO_BASELINE],
    ['baseline id', { baselineId: 'exe_other' }],
    ['baseline coverage', { baselineCoverage: 80.26 }],
    ['baseline commit', { baselineCommit: 'abc1234' }],
    ['baseline time', { baselineCreatedAt: new Date('2026-11-24T09:00:01Z') }],
  ])('never answers the remembered text for a record whose %s differs', (_field, change) => {
    const memo = new ExecutionJsonMemo();
    memo.textOf(record());
    const changed = record(change);
    expect(memo.textOf(changed)).toBe(JSON.stringify(executionToJson(changed)));
    expect(memo.textOf(changed)).not.toBe(EXPECTED_TEXT);
    expect(memo.size).toBe(1);
  });

  // Every field but the id (the memo's key), read from EXECUTION_FIELDS: a field added to the
  // record is tested here without a line, from a record where every field has a value.
  const FULL: Partial<ExecutionRecord> = {
    commit: '3f2a9c1',
    baseCommit: 'aaaaaaa',
    baselineCommit: '0123abc',
    baselineSelection: 'base_commit',
    component: 'api',
    pullRequest: 42,
    patchCovered: 1,
    patchCoverable: 4,
    patchTarget: 80,
    patchTargetSource: 'repository',
    decidedBy: 'patch',
    fileCount: 3,
    projectTarget: 70,
    policyDigest: 'a'.repeat(64),
    policyCommit: '3f2a9c1',
    policyEdited: 'covgate.yml',
    commentSections: ['verdict'],
    parts: {
      received: ['unit'],
      carried: [],
      carryforward: null,
      rules: null,
      expected: { count: 2 },
      expectedSource: 'run',
      closed: false,
      deadline: new Date('2026-11-24T11:15:31Z'),
      revision: 1,
      reason: null,
      verdict: 'pass',
    },
    postedBy: 'oidc:github:acme/api@refs/heads/main',
    feedback: {
      link: { host: 'github', repository: 'acme/api' },
      items: [{ kind: 'status_project', context: 'covgate/project (api)', skipped: null }],
    },
  };

  /** Another value of a field's kind: the record's text may not stay the same. */
  function another(value: unknown): unknown {
    if (value instanceof Date) return new Date(value.getTime() + 1000);
    if (typeof value === 'number') return value + 1;
    if (typeof value === 'string') return `${value}-other`;
    // The comment's sections: one more.
    if (Array.isArray(value)) return [...value, 'files'];
    // A commit report's parts: another part received.
    if (typeof value === 'object' && value !== null) return { ...value, received: ['other'] };
    return 'other';
  }

  it.each(EXECUTION_FIELDS.filter((field) => field !== 'id'))(
    'answers the text of the record as it is now when its %s changed',
    (field) => {
      const memo = new ExecutionJsonMemo();
      const before = record(FULL);
      memo.textOf(before);
      const changed = { ...before, [field]: another(before[field]) };
      expect(memo.textOf(changed)).toBe(JSON.stringify(executionToJson(changed)));
      expect(memo.size).toBe(1);
    },
  );

  it('forgets the entry it remembered first when full, and stays at its bound', () => {
    const memo = new ExecutionJsonMemo(2);
    const ids = ['exe_a', 'exe_b', 'exe_c'];
    for (const id of ids) memo.textOf(record({ id }));
    expect(memo.size).toBe(2);
    // exe_a was dropped: asking again remembers it anew, dropping exe_b.
    memo.textOf(record({ id: 'exe_a' }));
    expect(memo.size).toBe(2);
    // A changed record replaces its own entry without dropping another.
    memo.textOf(record({ id: 'exe_a', branch: 'dev' }));
    expect(memo.size).toBe(2);
  });

  it('refuses a bound that is not a positive integer', () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      expect(() => new ExecutionJsonMemo(bad)).toThrow(
        new RangeError('maxEntries must be a positive integer'),
      );
    }
  });

  it('matches JSON.stringify for any strings a store may hold, asked twice', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            id: fc.string({ minLength: 1, maxLength: 12 }),
            repo: fc.string(),
            branch: fc.string({ unit: 'binary' }),
            delta: fc.string(),
            coverage: fc.double({ min: 0, max: 100, noNaN: true }),
            commit: fc.option(fc.string()),
            seconds: fc.integer({ min: 0, max: 4_102_444_800 }),
            baseBranch: fc.option(fc.string()),
            baselineId: fc.option(fc.string()),
            baselineCommit: fc.option(fc.string()),
          }),
          { maxLength: 8 },
        ),
        (fields) => {
          const memo = new ExecutionJsonMemo(4);
          const records = fields.map(({ seconds, ...rest }) =>
            record({ ...rest, createdAt: new Date(seconds * 1000) }),
          );
          const expected = JSON.stringify(records.map(executionToJson));
          expect(memo.arrayText(records)).toBe(expected);
          expect(memo.arrayText(records)).toBe(expected);
        },
      ),
    );
  });
});
