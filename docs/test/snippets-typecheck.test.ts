import { existsSync } from 'node:fs';
import { copyFile, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { run } from '../../test/support/processes.js';

// Every JavaScript sample the pages include is type-checked with `tsc --strict` (checkJs), as
// it stands and, for ES modules, copied to `.mts` as a TypeScript user would paste it. A
// canary with the mistake the samples once had (`process.env.X` where a string is needed)
// must be reported, so a configuration that stopped being strict fails the test.
const docs = fileURLToPath(new URL('../', import.meta.url));
const snippets = join(docs, 'snippets');
const repo = join(docs, '..');
// Under docs/node_modules so that the samples resolve the packages as from docs/, and out of
// the way of git, biome and VitePress.
const workDir = join(docs, 'node_modules', '.cache', 'covgate-snippets-tsc');
const tsc = join(repo, 'node_modules', 'typescript', 'bin', 'tsc');

const built = ['core', 'express', 'hapi', 'fetch', 'client'].every((name) =>
  existsSync(join(repo, 'packages', name, 'dist', 'index.d.ts')),
);
if (!built) console.warn('[covgate] snippet type-check SKIPPED: run `pnpm build` first');

const CANARY = `const secret: string = process.env.COVGATE_CANARY;\nexport { secret };\n`;

/** The JavaScript samples the Markdown pages include with `<<< @/snippets/...`. */
async function includedSamples(): Promise<string[]> {
  const pages: string[] = [];
  for (const dir of ['', 'quickstart', 'adapters']) {
    for (const name of await readdir(join(docs, dir))) {
      if (name.endsWith('.md')) pages.push(join(docs, dir, name));
    }
  }
  const included = new Set<string>();
  for (const page of pages) {
    const text = await readFile(page, 'utf8');
    for (const match of text.matchAll(/^<<< @\/snippets\/([\w.-]+\.[cm]?js)\b/gm)) {
      included.add(match[1] as string);
    }
  }
  return [...included].sort();
}

describe.skipIf(!built && process.env.CI !== '1')('quick-start samples under tsc --strict', () => {
  it('finds the samples of the quick starts, adapters and provisioning pages', async () => {
    expect(await includedSamples()).toEqual(
      expect.arrayContaining([
        'client-walkthrough.mjs',
        'express-app.cjs',
        'express-app.mjs',
        'express-host-app.mjs',
        'fetch-app.mjs',
        'hapi-app.mjs',
        'provision.mjs',
      ]),
    );
  });

  it('type-checks every included sample, as JavaScript and as TypeScript', async () => {
    const samples = await includedSamples();
    await rm(workDir, { recursive: true, force: true });
    await mkdir(workDir, { recursive: true });
    const files = samples.map((name) => join(snippets, name));
    for (const name of samples.filter((sample) => sample.endsWith('.mjs'))) {
      const copy = join(workDir, name.replace(/\.mjs$/, '.mts'));
      await copyFile(join(snippets, name), copy);
      files.push(copy);
    }
    await writeFile(join(workDir, 'canary.mts'), CANARY);
    files.push(join(workDir, 'canary.mts'));
    await writeFile(
      join(workDir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          allowJs: true,
          checkJs: true,
          noEmit: true,
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          lib: ['es2023', 'dom'],
          types: ['node'],
          // The packages' own declarations are checked with skipLibCheck off by the tarball test.
          skipLibCheck: true,
        },
        files,
      }),
    );
    const result = await run(process.execPath, [tsc, '-p', join(workDir, 'tsconfig.json')], {
      cwd: docs,
      env: { PATH: process.env.PATH },
    });
    const errors = result.stdout.split('\n').filter((line) => / error TS\d+:/.test(line));
    expect(errors).toEqual([
      expect.stringMatching(/canary\.mts\(1,7\): error TS2322: Type 'string \| undefined'/),
    ]);
    expect(result.stderr).toBe('');
  }, 120_000);
});
