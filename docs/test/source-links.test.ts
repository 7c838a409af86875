import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Application } from 'typedoc';
import { afterAll, describe, expect, it } from 'vitest';
import { referenceOptions } from '../scripts/generate-reference.mjs';
import { repositoryWebUrl } from '../scripts/source-links.mjs';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const scratch: string[] = [];
afterAll(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

/** Every file under `dir`, read. */
function readAll(dir: string): string {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => readFileSync(join(entry.parentPath, entry.name), 'utf8'))
    .join('\n');
}

describe('the reference source links', () => {
  it('names the repository of package.json in its web form', () => {
    expect(repositoryWebUrl({ url: 'git+https://github.com/covgate/covgate.git' })).toBe(
      'https://github.com/covgate/covgate',
    );
    expect(repositoryWebUrl('https://gitea.example.com/team/app')).toBe(
      'https://gitea.example.com/team/app',
    );
    expect(() => repositoryWebUrl(undefined)).toThrow(
      'package.json "repository" must be an https URL like git+https://github.com/owner/name.git (got null)',
    );
  });

  it("builds without warnings in a clone with no origin remote, linking to package.json's repository", async () => {
    // A small copy of the repository (one package) committed in a repository without remotes,
    // as an unpacked archive turned into a repository is.
    const clone = mkdtempSync(join(tmpdir(), 'covgate-docs-no-remote-'));
    scratch.push(clone);
    cpSync(join(repo, 'package.json'), join(clone, 'package.json'));
    cpSync(join(repo, 'tsconfig.base.json'), join(clone, 'tsconfig.base.json'));
    cpSync(join(repo, 'packages', 'env-filter'), join(clone, 'packages', 'env-filter'), {
      recursive: true,
      filter: (source) => !source.includes('node_modules') && !source.includes('/dist'),
    });
    writeFileSync(
      join(clone, 'tsconfig.typedoc.json'),
      JSON.stringify({ extends: './tsconfig.base.json', include: ['packages/*/src'] }),
    );
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
        cwd: clone,
        encoding: 'utf8',
      }).trim();
    git('init', '-q');
    git('add', '.');
    git('commit', '-q', '-m', 'copy');
    expect(git('remote')).toBe('');
    const revision = git('rev-parse', 'HEAD');

    const outDir = join(clone, 'out');
    const app = await Application.bootstrapWithPlugins({
      ...referenceOptions({
        packages: [join(clone, 'packages', 'env-filter')],
        outDir,
        repoDir: clone,
        tsconfig: join(clone, 'tsconfig.typedoc.json'),
      }),
      logLevel: 'None',
    });
    const project = await app.convert();
    if (!project) throw new Error('TypeDoc could not convert the copy');
    await app.generateOutputs(project);

    expect(app.logger.hasWarnings() || app.logger.hasErrors()).toBe(false);
    expect(readAll(outDir)).toMatch(
      new RegExp(
        `Defined in: \\[[a-z-]+\\.ts:\\d+\\]\\(https://github\\.com/covgate/covgate/blob/${revision}/packages/env-filter/src/[a-z-]+\\.ts#L\\d+\\)`,
      ),
    );
  }, 120_000);
});
