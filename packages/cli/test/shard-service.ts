import { createTestApi } from '@covgate/testing';
import { expect } from 'vitest';
import type { PartsService } from '../../../test/support/built-parts-service.js';
import { covgateFigures, covgatePatch, type TestRepo } from './git-support.js';
import { covgateIn, type InProcessRun } from './in-process.js';

/** The service of `@covgate/testing` (memory store), answered in this process. */
export async function inProcessService(): Promise<PartsService> {
  const service = createTestApi();
  const org = await service.createOrganisation();
  const { secret } = await service.insertToken(org);
  return {
    env: { COVGATE_URL: 'http://covgate.test', COVGATE_TOKEN: secret },
    fetch: ((input: RequestInfo | URL, init?: RequestInit) =>
      service.api.handle(new Request(input, init))) as typeof fetch,
    get: async (path) => {
      const answer = await service.request(path, {
        headers: { authorization: `Bearer ${secret}` },
      });
      expect(answer.status, path).toBe(200);
      return answer.json();
    },
    close: async () => {},
  };
}

/**
 * Posts each report as one part of the checkout's commit, as each CI job would (`covgate report
 * --report <report> --part <name> --expect-parts <n> --json`), in the order given; `args` go to
 * every call (the repository, the branches). Resolves with each call's result.
 */
export async function postParts(
  repo: TestRepo,
  service: PartsService,
  parts: readonly { report: string; part: string }[],
  args: readonly string[],
): Promise<InProcessRun[]> {
  const results: InProcessRun[] = [];
  for (const { report, part } of parts) {
    const argv = ['report', ...args, '--report', report, '--part', part];
    argv.push('--expect-parts', String(parts.length), '--json');
    results.push(
      await covgateIn(
        repo.dir,
        argv,
        { ...repo.env, ...service.env, NO_COLOR: '1' },
        service.fetch,
      ),
    );
  }
  return results;
}

/**
 * The parts' reports downloaded into one checkout and posted in one call, as a job after the
 * matrix would: covgate's patch of them against `base` (in `covgateFigures`' shape), and the
 * answer of `covgate report --dry-run --json` with every report, which must exit 0.
 */
export async function reportInOneCall(
  repo: TestRepo,
  reports: readonly string[],
  base: string,
): Promise<{ patch: ReturnType<typeof covgateFigures>; out: Record<string, unknown> }> {
  const patch = covgateFigures(await covgatePatch(repo, [...reports], base));
  const args = ['report', '--repo', 'r', '--branch', 'feature', '--dry-run', '--json'];
  for (const report of reports) args.push('--report', report);
  const result = await covgateIn(repo.dir, args, repo.env);
  expect(result.code, result.stderr).toBe(0);
  return { patch, out: JSON.parse(result.stdout) };
}

/** Every line of `[first, last]` ranges. */
function linesOf(ranges: readonly (readonly [number, number])[]): number[] {
  return ranges.flatMap(([first, last]) =>
    Array.from({ length: last - first + 1 }, (_, i) => first + i),
  );
}

/** What the service holds for a commit's run: its figure and its patch, line by line. */
export interface MergedRun {
  coverage: number;
  covered: number;
  coverable: number;
  outcome: string;
  /** In the shape of `covgateFigures`/`diffCoverFigures` (git-support.ts). */
  patch: {
    coverable: number;
    covered: number;
    files: { path: string; uncovered_lines: number[] }[];
  };
}

interface Detail {
  coverage: number;
  outcome: string;
  files: { path: string; covered: number; coverable: number }[];
  patch: { covered: number; coverable: number } | null;
  patch_files: { path: string }[] | null;
}

interface FileLines {
  missed_lines: [number, number][];
  patch_lines: [number, number][] | null;
}

/**
 * The run `id` as the service answers it (`GET /v1/executions/{id}`), and its patch's uncovered
 * lines from each patch file's lines (`GET /v1/executions/{id}/files/{path}`: the changed lines
 * among the missed ones).
 */
export async function mergedRun(service: PartsService, id: string): Promise<MergedRun> {
  const detail = (await service.get(`/v1/executions/${id}`)) as Detail;
  const files = [];
  for (const { path } of detail.patch_files ?? []) {
    const lines = (await service.get(
      `/v1/executions/${id}/files/${encodeURIComponent(path)}`,
    )) as FileLines;
    const changed = new Set(linesOf(lines.patch_lines ?? []));
    files.push({
      path,
      uncovered_lines: linesOf(lines.missed_lines).filter((line) => changed.has(line)),
    });
  }
  return {
    coverage: detail.coverage,
    covered: detail.files.reduce((sum, file) => sum + file.covered, 0),
    coverable: detail.files.reduce((sum, file) => sum + file.coverable, 0),
    outcome: detail.outcome,
    patch: {
      coverable: detail.patch?.coverable ?? 0,
      covered: detail.patch?.covered ?? 0,
      files: files.sort((a, b) => (a.path < b.path ? -1 : 1)),
    },
  };
}
