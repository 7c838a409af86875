import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { run, type Started, startListening, stop } from '@covgate/test-support/processes';
import { afterEach, describe, expect, it } from 'vitest';
import { staleBuilds, workspacePackages } from '../../scripts/stale-builds.mjs';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const scratch: string[] = [];
afterEach(() => {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Writes `file` under `root` with its modification time `minutes` after a fixed instant. */
function writeAt(root: string, file: string, minutes: number, text = '{}'): void {
  const path = join(root, file);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  const at = new Date(Date.UTC(2026, 10, 1) + minutes * 60_000);
  utimesSync(path, at, at);
}

const manifest = (name: string, fields: Record<string, unknown>) =>
  JSON.stringify({ name, ...fields });

/**
 * A workspace like ours: the server depends on `lib`, which bundles the source-only `kit` (no
 * build script, as sql-kit); `other` is outside the server's closure. Every build was made at
 * minute 10 from sources of minute 0.
 */
function workspace(): string {
  const root = mkdtempSync(join(tmpdir(), 'covgate-start-'));
  scratch.push(root);
  const build = { scripts: { build: 'tsup' } };
  writeAt(
    root,
    'examples/server/package.json',
    0,
    manifest('@covgate/server', { ...build, dependencies: { lib: 'workspace:*' } }),
  );
  writeAt(
    root,
    'packages/lib/package.json',
    0,
    manifest('lib', { ...build, devDependencies: { kit: 'workspace:*' } }),
  );
  writeAt(root, 'packages/kit/package.json', 0, manifest('kit', {}));
  writeAt(root, 'packages/other/package.json', 0, manifest('other', build));
  for (const dir of ['examples/server', 'packages/lib', 'packages/kit', 'packages/other']) {
    writeAt(root, `${dir}/src/index.ts`, 0, '');
  }
  for (const dir of ['examples/server', 'packages/lib', 'packages/other']) {
    writeAt(root, `${dir}/dist/index.js`, 10, '');
  }
  return root;
}

const staleIn = (root: string): string[] => staleBuilds(workspacePackages(root));

describe('pnpm start: what it builds first', () => {
  it('builds nothing when every build is newer than its sources', () => {
    expect(staleIn(workspace())).toEqual([]);
  });

  it('builds a package of the server whose dist is missing, and the packages built from it', () => {
    const root = workspace();
    rmSync(join(root, 'packages/lib/dist'), { recursive: true });

    expect(staleIn(root)).toEqual(['@covgate/server', 'lib']);
  });

  it('rebuilds the server when a package it depends on was built after it', () => {
    const root = workspace();
    writeAt(root, 'packages/lib/dist/index.js', 20, '');

    expect(staleIn(root)).toEqual(['@covgate/server']);
  });

  it('rebuilds a package whose build script changed after its build', () => {
    const root = workspace();
    writeAt(root, 'examples/server/scripts/pack-cli.mjs', 20, '');

    expect(staleIn(root)).toEqual(['@covgate/server']);
  });

  it('rebuilds a package whose own source or manifest changed after its build', () => {
    const root = workspace();
    writeAt(root, 'examples/server/src/index.ts', 20, '');
    writeAt(
      root,
      'packages/lib/package.json',
      20,
      manifest('lib', { scripts: { build: 'tsup' }, devDependencies: { kit: 'workspace:*' } }),
    );

    expect(staleIn(root)).toEqual(['@covgate/server', 'lib']);
  });

  it('rebuilds the package that bundles a source-only package when that source changes (and what is built from it), never the source-only one', () => {
    const root = workspace();
    writeAt(root, 'packages/kit/src/index.ts', 20, '');

    expect(staleIn(root)).toEqual(['@covgate/server', 'lib']);
  });

  it('leaves packages the server does not depend on alone', () => {
    const root = workspace();
    rmSync(join(root, 'packages/other/dist'), { recursive: true });

    expect(staleIn(root)).toEqual([]);
  });
});

describe('pnpm start on the built tree', () => {
  let server: Started | undefined;
  afterEach(() => stop(server));

  it('builds nothing, starts the server and answers /health', async () => {
    // The test command builds every package before the tests run.
    expect(staleIn(repo), 'builds older than their sources: run pnpm build first').toEqual([]);
    const dataDir = mkdtempSync(join(tmpdir(), 'covgate-start-data-'));
    scratch.push(dataDir);
    server = await startListening([join(repo, 'scripts', 'start.mjs')], {
      cwd: repo,
      env: { PATH: process.env.PATH, PORT: '0', COVGATE_DATA_DIR: dataDir },
    });

    const health = await fetch(new URL('/health', server.url));
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    // The server's build packs the CLI, which it serves.
    const cli = await fetch(new URL('/cli/covgate.tgz', server.url));
    expect(cli.status).toBe(200);
    expect(cli.headers.get('content-type')).toBe('application/gzip');
    expect(server.output()).not.toContain('covgate: building');
  });
});

describe('pnpm admin on the built tree', () => {
  it('runs covgate-admin, as the banner of a server started from a clone names it, with the link alone on stdout', async () => {
    expect(staleIn(repo), 'builds older than their sources: run pnpm build first').toEqual([]);
    const dataDir = mkdtempSync(join(tmpdir(), 'covgate-admin-data-'));
    scratch.push(dataDir);
    const env = { PATH: process.env.PATH, COVGATE_DATA_DIR: dataDir };
    const bootstrap = await run('pnpm', ['-s', 'admin', 'bootstrap', 'acme'], { cwd: repo, env });
    expect(bootstrap.code, bootstrap.stderr).toBe(0);
    expect(bootstrap.stdout).toMatch(/^organisation: acme \(org_[0-9a-z]{26}, plan free\)\n/);
    const link = await run('pnpm', ['-s', 'admin', 'login-link', 'acme', '--name', 'Bea'], {
      cwd: repo,
      env,
    });
    expect(link.code, link.stderr).toBe(0);
    expect(link.stdout).toMatch(/^http:\/\/localhost:8080\/auth\/link\?token=cvgl_[0-9a-f]{64}\n$/);
    expect(link.stderr).not.toContain('covgate: building');
  });
});
