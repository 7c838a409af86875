import { mkdir, readdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { ExecutionInput } from '@covgate/client';

/** The `covgate_unsent` version of the files this CLI keeps and the only one `flush` reads. */
export const UNSENT_VERSION = 1;

/** A run `--allow-unreachable` kept because the service was unavailable. */
export interface UnsentRun {
  covgate_unsent: typeof UNSENT_VERSION;
  /** The `Idempotency-Key` of the first attempt; `covgate flush` sends the same. */
  idempotency_key: string;
  /** The service URL the run was meant for. */
  url: string;
  cli_version: string;
  /** When it was kept, ISO 8601. */
  kept_at: string;
  /** Whether the body goes gzip-compressed, as the first attempt sent it. */
  gzip: boolean;
  /** The body of `POST /v1/executions`, as the first attempt sent it. */
  run: ExecutionInput;
}

/** A kept run as read back: its file, or why the file is not one. */
export type KeptFile = { file: string; run: UnsentRun } | { file: string; problem: string };

/**
 * The folder kept runs go to: `COVGATE_UNSENT_DIR`, else `.covgate/unsent` at the repository
 * root (the folder the CLI resolves report paths against).
 */
export function unsentDir(env: NodeJS.ProcessEnv, repoRoot: string): string {
  return env.COVGATE_UNSENT_DIR || join(repoRoot, '.covgate', 'unsent');
}

/** A path as messages show it: relative to `cwd` when below it. */
export function shownPath(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return rel && !rel.startsWith('..') ? rel : path;
}

/**
 * Writes a run to `<dir>/<idempotency key>.json`, whole or not at all (a temporary file
 * renamed). The default folder gets a `.gitignore` of `*` beside it, so a kept run is never
 * committed by accident.
 */
export async function keepUnsent(dir: string, run: UnsentRun, isDefault: boolean): Promise<string> {
  await mkdir(dir, { recursive: true });
  if (isDefault) {
    await writeFile(join(dir, '..', '.gitignore'), '*\n', { flag: 'wx' }).catch(
      (error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw error;
      },
    );
  }
  const file = join(dir, `${run.idempotency_key}.json`);
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(run)}\n`, { mode: 0o600 });
  await rename(temporary, file);
  return file;
}

const KEY = /^[\x21-\x7e]{1,255}$/;

/** The kept runs of `dir`, oldest first; an absent folder has none. */
export async function listUnsent(dir: string): Promise<KeptFile[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const kept: KeptFile[] = [];
  for (const name of names.filter((n) => n.endsWith('.json')).sort()) {
    const file = join(dir, name);
    let value: unknown;
    try {
      value = JSON.parse(await readFile(file, 'utf8'));
    } catch {
      kept.push({ file, problem: 'not JSON' });
      continue;
    }
    const run = value as Partial<UnsentRun> | null;
    if (
      typeof run !== 'object' ||
      run === null ||
      run.covgate_unsent !== UNSENT_VERSION ||
      typeof run.idempotency_key !== 'string' ||
      !KEY.test(run.idempotency_key) ||
      typeof run.url !== 'string' ||
      typeof run.kept_at !== 'string' ||
      typeof run.gzip !== 'boolean' ||
      typeof run.run !== 'object' ||
      run.run === null
    ) {
      kept.push({ file, problem: `not a run kept by covgate (covgate_unsent ${UNSENT_VERSION})` });
      continue;
    }
    kept.push({ file, run: run as UnsentRun });
  }
  // Oldest first; a file that is not a kept run last.
  const keptAt = (entry: KeptFile) => ('run' in entry ? entry.run.kept_at : '\uffff');
  return kept.sort((a, b) => (keptAt(a) < keptAt(b) ? -1 : keptAt(a) > keptAt(b) ? 1 : 0));
}

/** Removes a kept run once the service stored it. */
export async function removeUnsent(file: string): Promise<void> {
  await unlink(file);
}
