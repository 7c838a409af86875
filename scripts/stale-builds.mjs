// Which of the reference server's workspace packages need a build before `pnpm start` runs it:
// those whose `dist/` is missing or older than their sources (or the sources they bundle), or
// than the build of a workspace package they depend on. The server's own build bundles the CLI
// too (`dist/cli/covgate.tgz`), so the CLI is among them.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The reference server's package name. */
export const SERVER = '@covgate/server';

/** name -> { dir, manifest } of every workspace package under `repo`'s packages/ and examples/. */
export function workspacePackages(repo) {
  const found = new Map();
  for (const parent of ['packages', 'examples']) {
    for (const entry of readdirSync(join(repo, parent), { withFileTypes: true })) {
      const dir = join(repo, parent, entry.name);
      if (!entry.isDirectory() || !existsSync(join(dir, 'package.json'))) continue;
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
      found.set(manifest.name, { dir, manifest });
    }
  }
  return found;
}

/** The server and every workspace package it depends on, directly or not. */
function serverClosure(packages) {
  const selected = new Set();
  const visit = (name) => {
    const pkg = packages.get(name);
    if (!pkg || selected.has(name)) return;
    selected.add(name);
    // Development dependencies too: a build may need them built (the dashboard app bundles the
    // client from its dist).
    const { dependencies = {}, devDependencies = {} } = pkg.manifest;
    for (const [dep, range] of Object.entries({ ...dependencies, ...devDependencies })) {
      if (String(range).startsWith('workspace:')) visit(dep);
    }
  };
  visit(SERVER);
  return [...selected].map((name) => ({ name, ...packages.get(name) }));
}

/** Newest (or oldest) modification time of the files under `path`, recursively. */
function mtimes(path, pick) {
  if (!existsSync(path)) return undefined;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let result;
  for (const entry of readdirSync(path)) {
    const time = mtimes(join(path, entry), pick);
    if (time !== undefined) result = result === undefined ? time : pick(result, time);
  }
  return result;
}

/** True for a package with a build of its own (not sources its dependents bundle, as sql-kit). */
const builds = ({ manifest }) => manifest.scripts?.build !== undefined;

/** The folders whose sources a package's build reads: its own, and those of what it bundles. */
function sourceDirs({ dir, manifest }, packages) {
  const { dependencies = {}, devDependencies = {} } = manifest;
  const bundled = Object.keys({ ...dependencies, ...devDependencies })
    .map((name) => packages.get(name))
    .filter((pkg) => pkg !== undefined && !builds(pkg));
  return [dir, ...bundled.map((pkg) => pkg.dir)];
}

/** The workspace packages with a build of their own that `pkg` depends on directly. */
function builtDependencies({ manifest }, packages) {
  const { dependencies = {}, devDependencies = {} } = manifest;
  return Object.entries({ ...dependencies, ...devDependencies })
    .filter(([, range]) => String(range).startsWith('workspace:'))
    .map(([name]) => packages.get(name))
    .filter((dep) => dep !== undefined && builds(dep));
}

/**
 * Whether `pkg`'s build is missing or older than what it is made from: its sources (and those it
 * bundles), its build scripts, and the builds of the workspace packages it depends on (the
 * server bundles core and packs the CLI from theirs), including those about to be rebuilt.
 */
function isStale(pkg, packages, stale) {
  const built = mtimes(join(pkg.dir, 'dist'), Math.min);
  if (built === undefined) return true;
  const dependencies = builtDependencies(pkg, packages);
  if (dependencies.some((dep) => stale(dep))) return true;
  const inputs = [
    ...sourceDirs(pkg, packages).flatMap((dir) =>
      ['src', 'scripts', 'package.json', 'tsup.config.ts'].map((input) => join(dir, input)),
    ),
    ...dependencies.map((dep) => join(dep.dir, 'dist')),
  ]
    .map((input) => mtimes(input, Math.max))
    .filter((time) => time !== undefined);
  return Math.max(...inputs) > built;
}

/** The names of the server's packages (itself included) whose build is missing or stale. */
export function staleBuilds(packages) {
  const decided = new Map();
  const stale = (pkg) => {
    if (!decided.has(pkg.name)) {
      // A dependency cycle (none today) counts as fresh rather than recursing forever.
      decided.set(pkg.name, false);
      decided.set(pkg.name, isStale(pkg, packages, stale));
    }
    return decided.get(pkg.name);
  };
  return serverClosure(packages)
    .filter((pkg) => builds(pkg) && stale(pkg))
    .map((pkg) => pkg.name);
}
