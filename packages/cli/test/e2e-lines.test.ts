import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run, type Started, startListening, stop } from '../../../test/support/processes.js';
import { runC8, writeSampleProject } from './support.js';

// Line data end to end: the built `covgate` bin posts a real c8 (node --test) lcov report to
// the built reference server, on its embedded SQLite store and on MariaDB
// (COVGATE_MYSQL_URL), and each file's lines read back from the server are the report's.

const bin = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
const serverDist = fileURLToPath(new URL('../../../examples/server/dist/', import.meta.url));
const built = existsSync(bin) && existsSync(join(serverDist, 'main.js'));
const mysqlUrl = process.env.COVGATE_MYSQL_URL;

const stores: [string, Record<string, string> | null][] = [
  ['SQLite', {}],
  ['MariaDB', mysqlUrl ? { DATABASE_URL: mysqlUrl } : null],
];

/** Each file's covered and missed lines as an lcov report's `DA` records give them. */
function lcovLines(text: string): Map<string, { covered: number[]; missed: number[] }> {
  const files = new Map<string, { covered: number[]; missed: number[] }>();
  let current: { covered: number[]; missed: number[] } | undefined;
  for (const line of text.split('\n')) {
    if (line.startsWith('SF:')) {
      current = { covered: [], missed: [] };
      files.set(line.slice(3), current);
    } else if (line.startsWith('DA:') && current) {
      const [number, hits] = line.slice(3).split(',').map(Number) as [number, number];
      (hits > 0 ? current.covered : current.missed).push(number);
    }
  }
  return files;
}

/** The line numbers of `[first, last]` ranges. */
const expand = (ranges: [number, number][]): number[] =>
  ranges.flatMap(([first, last]) => Array.from({ length: last - first + 1 }, (_, i) => first + i));

describe.each(stores)('line data through the CLI, on %s', (name, storeEnv) => {
  const skip = (!built && process.env.CI !== '1') || storeEnv === null;
  describe.skipIf(skip)(name, { timeout: 180_000 }, () => {
    let workDir: string;
    let server: Started;
    let token: string;

    const env = (cwd: string) => ({
      PATH: process.env.PATH,
      HOME: workDir,
      NO_COLOR: '1',
      COVGATE_URL: server.url,
      COVGATE_TOKEN: token,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@t.invalid',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@t.invalid',
      GIT_CONFIG_NOSYSTEM: '1',
      PWD: cwd,
    });
    const git = async (cwd: string, ...args: string[]) => {
      const result = await run('git', args, { cwd, env: env(cwd) });
      expect(result.code, result.stderr).toBe(0);
      return result.stdout.trim();
    };
    const covgate = async (cwd: string, args: string[]) => {
      const result = await run(
        process.execPath,
        [bin, 'report', '--report', 'coverage/lcov.info', '--json', ...args],
        { cwd, env: env(cwd) },
      );
      expect(result.code, result.stderr).toBe(0);
      return JSON.parse(result.stdout) as { execution_id: string };
    };
    const fileLines = async (id: string, path: string) => {
      const answer = await fetch(
        `${server.url}/v1/executions/${id}/files/${encodeURIComponent(path)}`,
        { headers: { authorization: `Bearer ${token}` } },
      );
      expect(answer.status, path).toBe(200);
      return (await answer.json()) as {
        covered_lines: [number, number][];
        missed_lines: [number, number][];
        patch_lines: [number, number][] | null;
        covered: number;
        coverable: number;
      };
    };

    beforeAll(async () => {
      workDir = await mkdtemp(join(tmpdir(), 'covgate-lines-e2e-'));
      const org = `lines-${Date.now().toString(36)}`;
      const serverEnv = {
        PATH: process.env.PATH,
        HOME: workDir,
        PORT: '0',
        COVGATE_DATA_DIR: join(workDir, 'data'),
        ...storeEnv,
      };
      server = await startListening([join(serverDist, 'main.js')], {
        cwd: workDir,
        env: serverEnv,
      });
      const admin = await run(process.execPath, [join(serverDist, 'admin.js'), 'bootstrap', org], {
        cwd: workDir,
        env: serverEnv,
      });
      const session = /COVGATE_SESSION=(cvgs_[0-9a-f]{64})/.exec(admin.stdout)?.[1] as string;
      const created = await fetch(`${server.url}/v1/tokens`, {
        method: 'POST',
        headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'ci' }),
      });
      token = ((await created.json()) as { secret: string }).secret;
    }, 180_000);

    afterAll(async () => {
      await stop(server);
      await rm(workDir, { recursive: true, force: true });
    });

    it("stores every file's lines as c8's lcov report lists them, and a pull request's changed lines", async () => {
      const dir = await writeSampleProject({ coverClassify: false });
      try {
        await writeFile(join(dir, '.gitignore'), 'coverage\n');
        await git(dir, 'init', '-q', '-b', 'main');
        await git(dir, 'add', '-A');
        await git(dir, 'commit', '-q', '-m', 'base');
        await runC8(dir);
        const report = lcovLines(await readFile(join(dir, 'coverage', 'lcov.info'), 'utf8'));
        expect(report.get('src/shapes.mjs')?.missed.length).toBeGreaterThan(0);

        const onMain = await covgate(dir, ['--repo', 'lines', '--branch', 'main']);
        for (const [path, lines] of report) {
          const answer = await fileLines(onMain.execution_id, path);
          expect(expand(answer.covered_lines), path).toEqual(lines.covered);
          expect(expand(answer.missed_lines), path).toEqual(lines.missed);
          expect(answer.patch_lines).toBeNull();
          expect([answer.covered, answer.coverable]).toEqual([
            lines.covered.length,
            lines.covered.length + lines.missed.length,
          ]);
        }

        // A pull request that changes lines 9-11 of src/shapes.mjs (classify's first branch).
        await git(dir, 'checkout', '-q', '-b', 'feature');
        const source = (await readFile(join(dir, 'src', 'shapes.mjs'), 'utf8')).split('\n');
        for (const index of [8, 9, 10]) source[index] = `${source[index]} // changed`;
        await writeFile(join(dir, 'src', 'shapes.mjs'), source.join('\n'));
        await git(dir, 'commit', '-q', '-am', 'change');
        await runC8(dir);
        const prReport = lcovLines(await readFile(join(dir, 'coverage', 'lcov.info'), 'utf8'));
        const pr = await covgate(dir, [
          '--repo',
          'lines',
          '--branch',
          'feature',
          '--base-branch',
          'main',
          '--patch-target',
          '0',
        ]);
        const shapes = await fileLines(pr.execution_id, 'src/shapes.mjs');
        expect(shapes.patch_lines).toEqual([[9, 11]]);
        expect(expand(shapes.covered_lines)).toEqual(prReport.get('src/shapes.mjs')?.covered);
        expect(expand(shapes.missed_lines)).toEqual(prReport.get('src/shapes.mjs')?.missed);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  });
});
