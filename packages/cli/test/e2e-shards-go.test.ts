import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PartsService } from '../../../test/support/built-parts-service.js';
import {
  covgateFigures,
  covgatePatch,
  createRepo,
  type PatchJson,
  type TestRepo,
  toolAvailable,
} from './git-support.js';
import { covgateIn } from './in-process.js';
import { inProcessService, mergedRun, postParts } from './shard-service.js';

// A Go module's packages split across two CI jobs, each `go test -coverpkg=./...
// -coverprofile` of some packages (so each job's profile lists every package, the shared one
// partly covered by each), on a pull request's branch. Compared with `go tool cover -func` of
// the unsharded run and with the patch covgate measures on the unsharded profile (diff-cover
// does not read Go profiles; patch-formats.test.ts checks that patch line by line).

const BASE: Record<string, string> = {
  'go.mod': 'module example.com/shards\n\ngo 1.19\n',
  '.gitignore': 'coverage*\n',
  'calc/calc.go':
    'package calc\n\n// Add returns a + b.\nfunc Add(a, b int) int {\n\treturn a + b\n}\n',
  'calc/calc_test.go':
    'package calc\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal("add")\n\t}\n}\n',
  'text/text.go':
    'package text\n\nimport "strings"\n\n// Shout upper-cases s.\nfunc Shout(s string) string {\n\treturn strings.ToUpper(s) + "!"\n}\n',
  'text/text_test.go':
    'package text\n\nimport "testing"\n\nfunc TestShout(t *testing.T) {\n\tif Shout("a") != "A!" {\n\t\tt.Fatal("shout")\n\t}\n}\n',
};

// The pull request: a shared package each job's tests reach a different branch of, and
// functions added to both packages, one never called.
const FEATURE: Record<string, string> = {
  'clamp/clamp.go':
    'package clamp\n\n// Clamp limits x to lo..hi.\nfunc Clamp(x, lo, hi int) int {\n\tif x < lo {\n\t\treturn lo\n\t}\n\tif x > hi {\n\t\treturn hi\n\t}\n\treturn x\n}\n',
  'calc/calc.go':
    'package calc\n\nimport "example.com/shards/clamp"\n\n// Add returns a + b.\nfunc Add(a, b int) int {\n\treturn a + b\n}\n\n// Div divides, 0 by 0 is 0.\nfunc Div(a, b int) int {\n\tif b == 0 {\n\t\treturn 0\n\t}\n\treturn clamp.Clamp(a/b, 0, 100)\n}\n',
  'calc/calc_test.go':
    'package calc\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 || Div(-8, 2) != 0 {\n\t\tt.Fatal("calc")\n\t}\n}\n',
  'text/text.go':
    'package text\n\nimport (\n\t"strings"\n\n\t"example.com/shards/clamp"\n)\n\n// Shout upper-cases s.\nfunc Shout(s string) string {\n\treturn strings.ToUpper(s) + "!"\n}\n\n// Cut keeps at most n bytes.\nfunc Cut(s string, n int) string {\n\treturn s[:clamp.Clamp(n, 0, len(s))]\n}\n\n// Never is not tested.\nfunc Never(s string) int {\n\tt := strings.TrimSpace(s)\n\treturn len(t)\n}\n',
  'text/text_test.go':
    'package text\n\nimport "testing"\n\nfunc TestShout(t *testing.T) {\n\tif Shout("a") != "A!" || Cut("abc", 9) != "abc" {\n\t\tt.Fatal("text")\n\t}\n}\n',
};

describe.skipIf(!toolAvailable('go', 'golang-go'))('Go packages tested by two jobs', () => {
  let repo: TestRepo;
  let service: PartsService;
  /** `go tool cover -func`'s total of the unsharded profile, "75.0%". */
  let goTotal: string;
  let unshardedPatch: PatchJson;
  const go = (...args: string[]) => {
    const home = repo.env.HOME as string;
    return repo.run('go', args, {
      GOPATH: join(home, 'go'),
      GOCACHE: join(home, 'go-cache'),
      GOFLAGS: '-mod=mod',
      GOPROXY: 'off',
      GOTOOLCHAIN: 'local',
      CGO_ENABLED: '0',
    });
  };
  const dryRun = async (...reports: string[]) => {
    const args = ['report', '--repo', 'r', '--branch', 'feature', '--dry-run', '--json'];
    for (const report of reports) args.push('--report', report);
    const result = await covgateIn(repo.dir, args, repo.env);
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout);
  };

  beforeAll(async () => {
    repo = await createRepo('shards-go');
    await repo.write(BASE);
    await repo.commit('two packages');
    await repo.git('checkout', '-q', '-b', 'feature');
    await repo.write(FEATURE);
    await repo.commit('a shared package');
    for (const [i, packages] of [
      [1, ['./calc/...']],
      [2, ['./text/...', './clamp/...']],
    ] as const) {
      await mkdir(join(repo.dir, `coverage-${i}`));
      await go('test', '-coverpkg=./...', `-coverprofile=coverage-${i}/coverage.out`, ...packages);
    }
    await go('test', '-coverpkg=./...', '-coverprofile=coverage.out', './...');
    const func = await go('tool', 'cover', '-func=coverage.out');
    goTotal = /^total:\s+\(statements\)\s+(\d+\.\d)%$/m.exec(func)?.[1] as string;
    unshardedPatch = await covgatePatch(repo, ['coverage.out'], 'main');
    service = await inProcessService();
  }, 300_000);
  afterAll(async () => {
    await service?.close();
    await repo?.remove();
  });

  it('made jobs that each cover less than the whole run, and a patch with missed lines', async () => {
    const whole = await dryRun('coverage.out');
    expect(goTotal).toBeDefined();
    for (const i of [1, 2])
      expect((await dryRun(`coverage-${i}/coverage.out`)).covered_lines).toBeLessThan(
        whole.covered_lines,
      );
    expect(unshardedPatch.covered).toBeGreaterThan(0);
    expect(unshardedPatch.covered).toBeLessThan(unshardedPatch.coverable);
  });

  it('downloaded as coverage-1/ and coverage-2/ and posted in one call: go tool cover’s figure and the unsharded patch', async () => {
    const reports = ['coverage-1/coverage.out', 'coverage-2/coverage.out'];
    const out = await dryRun(...reports);
    const whole = await dryRun('coverage.out');
    // Statements, as Go counts them: go tool cover prints one decimal, rounded.
    expect([out.covered_lines, out.coverable_lines]).toEqual([
      whole.covered_lines,
      whole.coverable_lines,
    ]);
    expect(((out.covered_lines / out.coverable_lines) * 100).toFixed(1)).toBe(goTotal);
    expect(out.coverage).toBe(whole.coverage);
    expect(out.unknown_paths).toEqual([]);
    const patch = await covgatePatch(repo, reports, 'main');
    expect(covgateFigures(patch)).toEqual(covgateFigures(unshardedPatch));
  });

  it('posted as two parts: the merged run has the unsharded run’s lines and patch', async () => {
    const args = ['--repo', 'go-lib', '--branch', 'feature', '--base-branch', 'main'];
    const answers = await postParts(
      repo,
      service,
      [
        { report: 'coverage-1/coverage.out', part: 'calc' },
        { report: 'coverage-2/coverage.out', part: 'text' },
      ],
      args,
    );
    expect(answers[0]?.code, answers[0]?.stderr).toBe(0);
    const verdict = JSON.parse(answers[1]?.stdout ?? '');
    const merged = await mergedRun(service, verdict.execution_id);
    expect(merged.patch).toEqual(covgateFigures(unshardedPatch));
    // The unsharded profile sent alone as the one part of another commit. A part's figure is
    // of lines (every line of a Go block with statements, docs/decisions/runs.md "Line data on
    // ingest"), not go tool cover's statements: merging needs lines. The one-call merge above
    // keeps statements.
    const [alone] = await postParts(
      repo,
      service,
      [{ report: 'coverage.out', part: 'all' }],
      ['--repo', 'go-whole', '--branch', 'feature', '--base-branch', 'main'],
    );
    const whole = await mergedRun(service, JSON.parse(alone?.stdout ?? '').execution_id);
    expect([merged.covered, merged.coverable, merged.coverage]).toEqual([
      whole.covered,
      whole.coverable,
      whole.coverage,
    ]);
  });
});
