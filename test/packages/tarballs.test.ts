import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { run, type Started, startListening, startProcess, stop } from '../support/processes.js';

// Every publishable workspace package (package.json not `private`), packed as npm would publish
// it, checked by publint and attw, then installed with npm into plain projects that use it the
// way applications do: CommonJS, ES modules, TypeScript with `module: nodenext`, node:test.

const repo = fileURLToPath(new URL('../../', import.meta.url));
const fixtures = join(repo, 'test', 'packages', 'fixtures');
const snippets = join(repo, 'docs', 'snippets');
const bin = (name: string) => join(repo, 'node_modules', '.bin', name);

interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  exports?: unknown;
  types?: string;
  bin?: Record<string, string>;
  files?: string[];
}

interface Publishable {
  dir: string;
  manifest: Manifest;
  /** File name of its tarball, as `pnpm pack` names it. */
  tarball: string;
}

/** The workspace's package folders, from pnpm-workspace.yaml (`dir` and `dir/*` entries). */
function workspaceDirs(): string[] {
  const workspace = parse(readFileSync(join(repo, 'pnpm-workspace.yaml'), 'utf8')) as {
    packages: string[];
  };
  return workspace.packages.flatMap((pattern) => {
    if (!pattern.endsWith('/*')) return [join(repo, pattern)];
    const parent = join(repo, pattern.slice(0, -2));
    return readdirSync(parent, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(parent, entry.name));
  });
}

const publishable: Publishable[] = workspaceDirs()
  .filter((dir) => existsSync(join(dir, 'package.json')))
  .map((dir) => ({
    dir,
    manifest: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest,
  }))
  .filter(({ manifest }) => manifest.private !== true)
  .map(({ dir, manifest }) => ({
    dir,
    manifest,
    tarball: `${manifest.name.replace(/^@/, '').replace('/', '-')}-${manifest.version}.tgz`,
  }))
  .sort((a, b) => a.manifest.name.localeCompare(b.manifest.name));

const built = publishable.every(({ dir }) => existsSync(join(dir, 'dist')));
if (!built) {
  console.warn('[covgate] tarball tests SKIPPED: run `pnpm build` first (`pnpm test` does)');
}

/** Runs `tasks` at most `limit` at a time (the machine may have two cores). */
async function inBatches<T>(items: T[], limit: number, task: (item: T) => Promise<void>) {
  const queue = [...items];
  const workers = Array.from({ length: limit }, async () => {
    for (let item = queue.shift(); item; item = queue.shift()) await task(item);
  });
  await Promise.all(workers);
}

/** Returns a scheduler that runs at most `limit` of the tasks given to it at a time. */
function limited(limit: number) {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (active >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    active += 1;
    try {
      return await task();
    } finally {
      active -= 1;
      waiting.shift()?.();
    }
  };
}

type RunResult = Awaited<ReturnType<typeof run>>;

const baseEnv = () => ({
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  npm_config_cache: process.env.npm_config_cache,
  // Node 22 and 24 from the registry trust only their own CA list; a machine behind a TLS proxy
  // names its CA bundle here, and npm run by those versions needs it to reach the registry.
  NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS,
});

async function npmInstall(cwd: string, dependencies: Record<string, string>): Promise<void> {
  await writeFile(
    join(cwd, 'package.json'),
    `${JSON.stringify({ name: 'plain-app', private: true, dependencies }, null, 2)}\n`,
  );
  const result = await run(
    'npm',
    ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'],
    { cwd, env: { ...baseEnv(), npm_config_update_notifier: 'false' } },
  );
  if (result.code !== 0) throw new Error(`npm install failed in ${cwd}:\n${result.stderr}`);
}

describe.skipIf(!built && process.env.CI !== '1')('packed tarballs', () => {
  let workDir: string;
  let tarballs: string;
  /** A plain project with every tarball, Express 5, Hapi 21 and their types installed. */
  let app: string;
  /** A plain project with only the two stand-alone utilities. */
  let alone: string;
  /** A CommonJS project on Express 4 (its types too) with the Express adapter's tarballs. */
  let express4App: string;
  /** Its TypeScript check with Express 4's types, started once it is installed. */
  let express4Typecheck: Promise<RunResult>;
  /** The slow checks start as soon as the packages are installed and run beside the others. */
  let typecheck: Promise<RunResult>;
  const attw = new Map<string, Promise<RunResult>>();
  const file = (name: string) => `file:${join(tarballs, name)}`;
  const tarballOf = (name: string) =>
    (publishable.find((p) => p.manifest.name === name) as Publishable).tarball;

  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'covgate-tarballs-'));
    tarballs = join(workDir, 'tarballs');
    app = join(workDir, 'app');
    alone = join(workDir, 'alone');
    express4App = join(workDir, 'express4');
    await Promise.all([mkdir(tarballs), mkdir(app), mkdir(alone), mkdir(express4App)]);
    await inBatches(publishable, 3, async ({ dir }) => {
      const result = await run('pnpm', ['pack', '--pack-destination', tarballs], {
        cwd: dir,
        env: baseEnv(),
      });
      if (result.code !== 0) throw new Error(`pnpm pack failed in ${dir}:\n${result.stderr}`);
    });
    const appDependencies = Object.fromEntries(
      publishable.map(({ manifest, tarball }) => [manifest.name, file(tarball)]),
    );
    await Promise.all([
      npmInstall(app, {
        ...appDependencies,
        express: '^5.1.0',
        '@hapi/hapi': '^21.4.0',
        '@types/express': '^5.0.6',
        '@types/node': '^20.19.0',
      }),
      npmInstall(alone, {
        '@covgate/env-filter': file(tarballOf('@covgate/env-filter')),
        '@covgate/webhook-signature': file(tarballOf('@covgate/webhook-signature')),
      }),
      // A plain `npm install`, no --legacy-peer-deps: the peer range must admit Express 4.
      npmInstall(express4App, {
        // The adapter and the packages it depends on, none of them published yet.
        '@covgate/env-filter': file(tarballOf('@covgate/env-filter')),
        '@covgate/webhook-signature': file(tarballOf('@covgate/webhook-signature')),
        '@covgate/core': file(tarballOf('@covgate/core')),
        '@covgate/node-bridge': file(tarballOf('@covgate/node-bridge')),
        '@covgate/express': file(tarballOf('@covgate/express')),
        express: '^4.21.2',
        '@types/express': '^4.17.23',
        '@types/node': '^20.19.0',
      }),
    ]);
    const schedule = limited(2);
    for (const { manifest, tarball } of publishable) {
      if (!manifest.exports && !manifest.types) continue;
      const args = [join(tarballs, tarball), '--format', 'ascii'];
      const result = schedule(() =>
        run(bin('attw'), [...args, '--no-color'], { cwd: workDir, env: baseEnv() }),
      );
      result.catch(() => {});
      attw.set(manifest.name, result);
    }
    typecheck = startTypecheck();
    typecheck.catch(() => {});
    express4Typecheck = startExpress4Typecheck();
    express4Typecheck.catch(() => {});
  }, 300_000);

  afterAll(async () => {
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  it('finds the publishable packages', () => {
    expect(publishable.map((p) => p.manifest.name)).toEqual(
      expect.arrayContaining([
        '@covgate/core',
        '@covgate/env-filter',
        '@covgate/express',
        '@covgate/fetch',
        '@covgate/hapi',
        '@covgate/mysql',
        '@covgate/node-bridge',
        '@covgate/sqlite',
        '@covgate/server',
        '@covgate/testing',
        '@covgate/webhook-signature',
      ]),
    );
  });

  describe.each(publishable)('$manifest.name', ({ manifest, tarball }) => {
    it('publint reports nothing', async () => {
      const data = await readFile(join(tarballs, tarball));
      const { messages, pkg } = await publint({
        pack: { tarball: data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) },
        level: 'suggestion',
        strict: true,
      });
      expect(messages.map((message) => formatMessage(message, pkg, { color: false }))).toEqual([]);
    });

    it.skipIf(!manifest.exports && !manifest.types)(
      'attw reports nothing (node10, node16 CommonJS and ES modules, bundlers)',
      async () => {
        const result = await (attw.get(manifest.name) as Promise<RunResult>);
        // attw exits non-zero on any problem of the profile; its table is the failure message.
        expect(result.code, result.stdout + result.stderr).toBe(0);
      },
      240_000,
    );

    it('ships the MIT LICENSE and no sources', async () => {
      const installed = join(app, 'node_modules', ...manifest.name.split('/'));
      expect(await readFile(join(installed, 'LICENSE'), 'utf8')).toBe(
        await readFile(join(repo, 'LICENSE'), 'utf8'),
      );
      expect(existsSync(join(installed, 'src'))).toBe(false);
      expect(
        JSON.stringify(JSON.parse(await readFile(join(installed, 'package.json'), 'utf8'))),
      ).not.toContain('./src/');
    });
  });

  /** Starts one of the documented sample applications inside the plain project. */
  async function runDocumentedPath(sample: string, project = app): Promise<unknown> {
    await copyFile(join(snippets, sample), join(project, sample));
    const env = {
      ...baseEnv(),
      PORT: '0',
      SESSION_SECRET: 'tarball-session-secret-0123456789abcdef0123456789',
      SERVICE_TOKEN: 'tarball-service-token-0123456789abcdef0123456789',
    };
    let started: Started | undefined;
    try {
      started = await startListening([sample], { cwd: project, env });
      const result = await run('bash', [join(snippets, 'empty-store-to-list.sh')], {
        cwd: project,
        env: { ...env, COVGATE_URL: started.url },
      });
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      return JSON.parse(result.stdout);
    } finally {
      await stop(started);
    }
  }

  const listedRun = {
    executions: [
      {
        id: expect.stringMatching(/^exe_[0-9a-z]{26}$/),
        repo: 'web',
        branch: 'main',
        outcome: 'pass',
        delta: '0.00',
        coverage: 84.13,
        commit: null,
        created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/),
        baseline: null,
        feedback: {
          link: null,
          commit: 'none',
          pull_request: null,
          items: [
            ['status_project', 'covgate/project'],
            ['status_patch', 'covgate/patch'],
            ['comment', 'comment'],
          ].map(([kind, name]) => ({
            kind,
            name,
            queued: false,
            reason: 'not_linked',
            message: 'not sent: the repository is not linked to a code host',
          })),
        },
      },
    ],
    total: 1,
  };

  it('a CommonJS Express 5 app creates an organisation and lists its execution', async () => {
    expect(await runDocumentedPath('express-app.cjs')).toEqual(listedRun);
  });

  it('an ES module Express 5 app creates an organisation and lists its execution', async () => {
    expect(await runDocumentedPath('express-app.mjs')).toEqual(listedRun);
  });

  it('a CommonJS Express 4 app, installed without --legacy-peer-deps, does the same', async () => {
    const installed = JSON.parse(
      await readFile(join(express4App, 'node_modules', 'express', 'package.json'), 'utf8'),
    ) as { version: string };
    expect(installed.version).toMatch(/^4\./);
    expect(await runDocumentedPath('express-app.cjs', express4App)).toEqual(listedRun);
  });

  it('type-checks the Express adapter against Express 4 types (CommonJS, strict)', async () => {
    const result = await express4Typecheck;
    expect(result.stdout + result.stderr).toBe('');
    expect(result.code).toBe(0);
  }, 240_000);

  /** A .cts file mounting covgate in an Express 4 app, checked with @types/express 4. */
  async function startExpress4Typecheck(): Promise<RunResult> {
    await writeFile(
      join(express4App, 'check.cts'),
      [
        "import { createApi, createMemoryStore } from '@covgate/core';",
        "import { covgate, covgateRawBody } from '@covgate/express';",
        "import express = require('express');",
        '',
        "const api = createApi({ store: createMemoryStore(), sessionSecret: 's'.repeat(32) });",
        'const app: express.Express = express();',
        "app.use('/coverage', covgate(api, { exclusive: true }));",
        'app.use(express.json({ verify: covgateRawBody }));',
        'export = app;',
        '',
      ].join('\n'),
    );
    await writeFile(
      join(express4App, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          lib: ['es2023', 'dom'],
          strict: true,
          // Our declarations are checked with skipLibCheck off in the main project.
          skipLibCheck: true,
          noEmit: true,
          types: ['node'],
        },
        files: ['check.cts'],
      }),
    );
    return run(
      process.execPath,
      [join(repo, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'],
      { cwd: express4App, env: baseEnv() },
    );
  }

  it('an ES module Hapi 21 app creates an organisation and lists its execution', async () => {
    expect(await runDocumentedPath('hapi-app.mjs')).toEqual(listedRun);
  });

  /** Type-checks the .cts and .mts samples inside the plain project. */
  async function startTypecheck(): Promise<RunResult> {
    await copyFile(join(fixtures, 'check.cts'), join(app, 'check.cts'));
    await copyFile(join(fixtures, 'check.mts'), join(app, 'check.mts'));
    await writeFile(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          lib: ['es2023', 'dom'],
          strict: true,
          skipLibCheck: false,
          noEmit: true,
          types: ['node'],
        },
        files: ['check.cts', 'check.mts'],
      }),
    );
    return run(
      process.execPath,
      [join(repo, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'],
      { cwd: app, env: baseEnv() },
    );
  }

  it('type-checks a .cts and a .mts file with module nodenext and skipLibCheck false', async () => {
    const result = await typecheck;
    // skipLibCheck is off, so tsc also reports errors inside third-party declarations that our
    // types pull in (drizzle-orm's own .d.ts, @hapi/hapi's types importing an uninstalled joi).
    // Those are not ours to fix: every diagnostic in our files or our declarations must be absent.
    const diagnostics = result.stdout
      .split('\n')
      .filter((line) => /^\S+\(\d+,\d+\): error /.test(line));
    const ours = diagnostics.filter(
      (line) => !line.startsWith('node_modules/') || line.startsWith('node_modules/@covgate/'),
    );
    expect(ours).toEqual([]);
    expect(result.stderr).toBe('');
    expect(result.code === 0 || diagnostics.length > 0, result.stdout).toBe(true);
  }, 240_000);

  it('@covgate/testing runs under node:test without vitest installed', async () => {
    await copyFile(join(fixtures, 'fixtures.test.mjs'), join(app, 'fixtures.test.mjs'));
    await copyFile(join(fixtures, 'fixtures.test.cjs'), join(app, 'fixtures.test.cjs'));
    expect(existsSync(join(app, 'node_modules', 'vitest'))).toBe(false);
    const result = await run(
      process.execPath,
      ['--test', '--test-reporter=tap', 'fixtures.test.mjs', 'fixtures.test.cjs'],
      { cwd: app, env: baseEnv() },
    );
    expect(result.stdout).toContain('# pass 4');
    expect(result.stdout).toContain('# fail 0');
    expect(result.code).toBe(0);
  });

  it('@covgate/cli ships the policy schema editors read, identical to the published one', async () => {
    const installed = join(app, 'node_modules', '@covgate', 'cli', 'covgate.schema.json');
    const shipped = await readFile(installed, 'utf8');
    expect(shipped).toBe(
      await readFile(join(repo, 'packages', 'cli', 'covgate.schema.json'), 'utf8'),
    );
    expect(shipped).toBe(
      await readFile(join(repo, 'docs', 'public', 'covgate.schema.json'), 'utf8'),
    );
    expect(JSON.parse(shipped)).toMatchObject({ title: 'covgate policy (covgate.yml)' });
  });

  it('@covgate/core ships no test code: no testing subpath, no suite in its files', async () => {
    const core = join(app, 'node_modules', '@covgate', 'core');
    const manifest = JSON.parse(await readFile(join(core, 'package.json'), 'utf8')) as Manifest;
    expect(
      Object.keys(manifest.exports as object).filter((key) => key.includes('testing')),
    ).toEqual([]);
    const dist = readdirSync(join(core, 'dist'));
    expect(dist.filter((name) => name.includes('testing'))).toEqual([]);
    const withSuites = dist.filter((name) =>
      readFileSync(join(core, 'dist', name), 'utf8').includes('runStoreConformanceSuite'),
    );
    expect(withSuites).toEqual([]);
  });

  it('@covgate/server ships the CLI as one package: no dependency, a covgate bin, every licence kept', async () => {
    const packed = join(app, 'node_modules', '@covgate', 'server', 'dist', 'cli', 'covgate.tgz');
    const unpacked = join(workDir, 'served-cli');
    await mkdir(unpacked);
    const untar = await run('tar', ['xzf', packed, '-C', unpacked], { env: baseEnv() });
    expect(untar.code, untar.stderr).toBe(0);
    const cli = join(unpacked, 'package');
    expect(readdirSync(cli).sort()).toEqual([
      'LICENSE',
      'README.md',
      'THIRD-PARTY-LICENSES.md',
      'bin.js',
      'package.json',
    ]);
    const manifest = JSON.parse(await readFile(join(cli, 'package.json'), 'utf8'));
    const published = JSON.parse(
      await readFile(join(repo, 'packages', 'cli', 'package.json'), 'utf8'),
    ) as Manifest;
    expect(manifest).toMatchObject({
      name: '@covgate/cli',
      version: published.version,
      license: 'MIT',
      type: 'module',
      bin: { covgate: 'bin.js' },
    });
    for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
      expect(manifest[field], field).toBeUndefined();
    }
    expect(await readFile(join(cli, 'LICENSE'), 'utf8')).toBe(
      await readFile(join(repo, 'LICENSE'), 'utf8'),
    );
    // esbuild heads each bundled module with its path: every package seen there has a licence
    // section, and nothing of covgate's own comes from node_modules.
    const bundle = await readFile(join(cli, 'bin.js'), 'utf8');
    const bundled = new Set(
      [...bundle.matchAll(/^\/\/ \S*node_modules\/((?:@[^/]+\/)?[^/]+)\//gm)].map((m) => m[1]),
    );
    expect([...bundled]).toEqual(expect.arrayContaining(['commander', 'execa', 'saxes']));
    expect([...bundled].filter((name) => name?.startsWith('@covgate/'))).toEqual([]);
    const licences = await readFile(join(cli, 'THIRD-PARTY-LICENSES.md'), 'utf8');
    const sections = new Set(
      [...licences.matchAll(/^## ((?:@[^/@]+\/)?[^@\s]+)@/gm)].map((m) => m[1]),
    );
    expect([...bundled].filter((name) => !sections.has(name as string))).toEqual([]);
    expect(licences).toContain('Permission is hereby granted, free of charge');

    const version = await run(process.execPath, [join(cli, 'bin.js'), '--version'], {
      cwd: workDir,
      env: baseEnv(),
    });
    expect(version).toMatchObject({ code: 0, stdout: `${published.version}\n`, stderr: '' });
  });

  it('npx covgate-server starts on the embedded store and npx covgate-admin bootstrap acme works', async () => {
    const env = { ...baseEnv(), PORT: '0' };
    const startedAt = performance.now();
    // npx runs the bin as its child: the server runs in npx's process group, which stop() ends.
    const server = startProcess('npx', ['--no-install', 'covgate-server'], { cwd: app, env });
    try {
      const [, url] = await server.waitForLine(/listening on (http:\/\/[^"\s]+)/, {
        timeoutMs: 60_000,
      });
      const health = await fetch(`${url}/health`);
      expect(health.status).toBe(200);
      console.info(
        `[covgate] npx covgate-server answered /health ${Math.round(performance.now() - startedAt)} ms after its start`,
      );
      expect(existsSync(join(app, '.covgate-data', 'covgate.db'))).toBe(true);

      const admin = await run('npx', ['--no-install', 'covgate-admin', 'bootstrap', 'acme'], {
        cwd: app,
        env,
      });
      expect(admin.code, admin.stderr).toBe(0);
      expect(admin.stderr).toMatch(
        /^\[audit\] organisation\.create org_id=org_[0-9a-z]{26} slug=acme$/m,
      );
      const token = /export COVGATE_SESSION=(cvgs_[0-9a-f]{64})/.exec(admin.stdout)?.[1];
      expect(token).toBeDefined();
      const session = await fetch(`${url}/v1/session`, {
        headers: { Authorization: `Bearer ${token}` },
      });
      expect(session.status).toBe(200);
      expect(await session.json()).toMatchObject({
        org: 'acme',
        plan: 'free',
        user_id: 'usr_admin',
      });
    } finally {
      await server.stop('SIGTERM');
    }
  }, 120_000);

  // The client against a tiny local service: one health answer and one refusal in the API's shape.
  const clientScript = `
    const http = require('node:http');
    const server = http.createServer((req, res) => {
      const status = req.url === '/health' ? 200 : 401;
      const body = status === 200 ? { status: 'ok' } : { error: 'invalid token' };
      res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': 'req-1' });
      res.end(JSON.stringify(body));
    });
    server.listen(0, '127.0.0.1', async () => {
      const { createCovgateClient, CovgateApiError } = CLIENT;
      const client = createCovgateClient({
        baseUrl: 'http://127.0.0.1:' + server.address().port,
        token: 'cvg_' + '0'.repeat(40),
      });
      const health = await client.getHealth();
      const refused = await client.validateToken().catch((error) => error);
      console.log(JSON.stringify({
        health,
        refused: refused instanceof CovgateApiError,
        status: refused.status,
        message: refused.message,
      }));
      server.close();
    });
  `;

  it.each([
    ['client.cjs', "require('@covgate/client')"],
    ['client.mjs', "await import('@covgate/client')"],
  ])('@covgate/client works from its tarball (%s)', async (name, load) => {
    // The ES module gets `require` for node:http only; the client itself comes through `load`.
    const prelude = name.endsWith('.mjs')
      ? "import { createRequire } from 'node:module';\nconst require = createRequire(import.meta.url);\n"
      : '';
    await writeFile(join(app, name), `${prelude}const CLIENT = ${load};\n${clientScript}`);
    const result = await run(process.execPath, [name], { cwd: app, env: baseEnv() });
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual({
      health: { status: 'ok' },
      refused: true,
      status: 401,
      message: '401 invalid token (request req-1)',
    });
  });

  const utilities = `
    const { filterEnv } = UTIL_ENV;
    const { signRawBodyPayload, verifyRawBodySignature } = UTIL_SIG;
    const env = filterEnv({ PATH: '/usr/bin', AWS_SECRET_ACCESS_KEY: 'x', npm_token: 'y' });
    const header = signRawBodyPayload({ payload: '{"id":1}', secret: 's3cret' });
    const verified = verifyRawBodySignature({ payload: '{"id":1}', header, secret: 's3cret' });
    const forged = verifyRawBodySignature({ payload: '{"id":2}', header, secret: 's3cret' });
    console.log(JSON.stringify({ env, verified, forged }));
  `;
  const utilitiesOutput = {
    env: { PATH: '/usr/bin' },
    verified: { ok: true },
    forged: { ok: false, reason: 'signature_mismatch' },
  };

  it('@covgate/env-filter and @covgate/webhook-signature work alone through require()', async () => {
    const source = utilities
      .replace('UTIL_ENV', "require('@covgate/env-filter')")
      .replace('UTIL_SIG', "require('@covgate/webhook-signature')");
    await writeFile(join(alone, 'utilities.cjs'), source);
    const result = await run(process.execPath, ['utilities.cjs'], { cwd: alone, env: baseEnv() });
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual(utilitiesOutput);
    expect(readdirSync(join(alone, 'node_modules', '@covgate')).sort()).toEqual([
      'env-filter',
      'webhook-signature',
    ]);
  });

  it('@covgate/env-filter and @covgate/webhook-signature work alone through import', async () => {
    const source = `import * as envFilter from '@covgate/env-filter';
      import * as signature from '@covgate/webhook-signature';
      ${utilities.replace('UTIL_ENV', 'envFilter').replace('UTIL_SIG', 'signature')}`;
    await writeFile(join(alone, 'utilities.mjs'), source);
    const result = await run(process.execPath, ['utilities.mjs'], { cwd: alone, env: baseEnv() });
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual(utilitiesOutput);
  });
});
