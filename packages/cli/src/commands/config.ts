import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { stringify } from 'yaml';
import { detectContext } from '../ci/detect.js';
import { readApiToken } from '../credentials.js';
import { EXIT, usageError } from '../errors.js';
import type { Io } from '../io.js';
import { findRepoRoot } from '../paths/repo-root.js';
import { importCodecov } from '../policy/codecov-import.js';
import {
  effectivePolicy,
  effectivePolicyLines,
  type OrganisationMinimums,
  type PolicyFlags,
  type RepositoryPatchTarget,
  withOrganisationMinimums,
  withRepositorySetting,
} from '../policy/effective-policy.js';
import { parsePolicy } from '../policy/parse-policy.js';
import { policyForRun } from '../policy/policy-for-run.js';
import { loadPolicy } from '../policy/read-policy.js';
import { askService, serviceUrl } from '../service.js';

/**
 * `covgate config check [file]`: validates the policy file (default: covgate.yml or
 * .covgate.yml at the repository's root, as the working tree has it). Exit 0 when valid; 2
 * with `file:line:column: what is wrong` when not, or when there is none.
 */
export async function configCheck(
  file: string | undefined,
  options: { json: boolean },
  io: Io,
): Promise<number> {
  let name: string;
  if (file !== undefined) {
    let text: string;
    try {
      text = await readFile(resolve(io.cwd, file), 'utf8');
    } catch (error) {
      throw usageError(`${file}: cannot be read (${(error as NodeJS.ErrnoException).code})`);
    }
    parsePolicy(text, file);
    name = file;
  } else {
    const root = await findRepoRoot(io.cwd);
    const loaded = await loadPolicy(root, null, io.env);
    if (loaded === null) {
      throw usageError(`no covgate.yml or .covgate.yml at ${root}: nothing to check`);
    }
    name = loaded.file;
  }
  io.stdout.write(
    options.json ? `${JSON.stringify({ file: name, valid: true })}\n` : `${name}: valid\n`,
  );
  return EXIT.ok;
}

/**
 * `covgate config import <codecov.yml>`: prints the covgate.yml of the common subset of a
 * Codecov configuration on stdout (validated against the schema), and each key it could not
 * convert on stderr (or both as JSON with `--json`).
 */
export async function configImport(
  file: string,
  options: { json: boolean },
  io: Io,
): Promise<number> {
  let text: string;
  try {
    text = await readFile(resolve(io.cwd, file), 'utf8');
  } catch (error) {
    throw usageError(`${file}: cannot be read (${(error as NodeJS.ErrnoException).code})`);
  }
  const { policy, notConverted } = importCodecov(text, file);
  const yaml = `# covgate.yml converted from ${file} by covgate config import\n${Object.keys(policy).length === 0 ? '' : stringify(policy)}`;
  // What it writes is checked as any covgate.yml is.
  parsePolicy(yaml, 'the converted covgate.yml');
  if (options.json) {
    io.stdout.write(`${JSON.stringify({ policy, not_converted: notConverted })}\n`);
    return EXIT.ok;
  }
  io.stdout.write(yaml);
  for (const line of notConverted) io.stderr.write(`covgate: not converted: ${line}\n`);
  return EXIT.ok;
}

/** What `config show` reads from the service with an API token. */
interface ServiceSettings {
  minimums: OrganisationMinimums | null;
  repository: (RepositoryPatchTarget & { repo: string }) | null;
}

/**
 * The organisation's minimums and the repository's patch target, read from the service when
 * an API token is set (neither without one, said on stderr; a failed read is said and leaves
 * it out: `config show` describes, it judges nothing).
 */
async function readServiceSettings(
  options: { url?: string },
  repo: string | undefined,
  io: Io,
  version: string,
  say: (line: string) => void,
): Promise<ServiceSettings> {
  if (!io.env.COVGATE_TOKEN?.trim() && !io.env.COVGATE_TOKEN_FILE) {
    say('organisation minimums not read: no COVGATE_TOKEN (the service applies them to every run)');
    say("the repository's patch target not read: no COVGATE_TOKEN");
    return { minimums: null, repository: null };
  }
  let token: string;
  let url: string;
  try {
    token = await readApiToken(io.env);
    url = serviceUrl(options.url, io.env);
  } catch (error) {
    say(`organisation minimums not read: ${(error as Error).message}`);
    return { minimums: null, repository: null };
  }
  const ask = <T>(call: Parameters<typeof askService<T>>[4]) =>
    askService(io, url, token, version, call);
  let minimums: OrganisationMinimums | null = null;
  try {
    const settings = await ask((client) => client.getOrganisationSettings());
    minimums = {
      min_patch_target: settings.min_patch_target,
      min_project_target: settings.min_project_target,
    };
  } catch (error) {
    say(`organisation minimums not read: ${(error as Error).message}`);
  }
  if (repo === undefined) {
    say("the repository's patch target not read: no repository (pass --repo NAME)");
    return { minimums, repository: null };
  }
  try {
    const { org } = await ask((client) => client.validateToken({ body: {} }));
    const settings = await ask((client) => client.getRepoSettings({ org, repo }));
    return {
      minimums,
      repository: {
        repo,
        patch_target: settings.patch_target,
        effective_patch_target: settings.effective_patch_target,
      },
    };
  } catch (error) {
    say(`the repository's patch target not read: ${(error as Error).message}`);
    return { minimums, repository: null };
  }
}

/**
 * `covgate config show`: the policy a run here would be judged by (the file at the merge base
 * on a change, else the commit's) and where each value comes from: a flag, the file, CI, the
 * repository's setting, covgate's default or the organisation's minimum (read from the
 * service when an API token is set).
 */
export async function configShow(
  options: PolicyFlags & { branch?: string; repo?: string; url?: string; json: boolean },
  io: Io,
  version: string,
): Promise<number> {
  const say = (line: string) => io.stderr.write(`covgate: ${line}\n`);
  const root = await findRepoRoot(io.cwd);
  const detected =
    options.branch && options.baseBranch && options.repo ? {} : detectContext(io.env, io.cwd);
  const branch = options.branch ?? detected.branch ?? '';
  const ciBase = detected.baseBranch;
  const run = await policyForRun(
    { root, branch, baseBranch: options.baseBranch ?? ciBase, allowMissingPatch: true },
    io.env,
    say,
  );
  const own = effectivePolicy(run.loaded?.policy ?? null, options, ciBase);
  if (run.baseBranch !== undefined && own.base_branch.source === 'default') {
    own.base_branch = { value: run.baseBranch, source: 'file' };
  }
  const repo = options.repo ?? detected.repo;
  const { minimums, repository } = await readServiceSettings(options, repo, io, version, say);
  const withRepository = repository === null ? own : withRepositorySetting(own, repository);
  const effective =
    minimums === null ? withRepository : withOrganisationMinimums(withRepository, minimums);
  const policy = run.loaded
    ? { file: run.loaded.file, commit: run.loaded.commit, digest: run.loaded.digest }
    : null;
  if (options.json) {
    io.stdout.write(
      `${JSON.stringify({ policy, edited: run.edited, effective, organisation_minimums: minimums, repository_settings: repository })}\n`,
    );
    return EXIT.ok;
  }
  const from = policy
    ? `${policy.file}${policy.commit ? ` at ${policy.commit.slice(0, 12)}` : ''}${run.base && 'mergeBase' in run.base ? ` (the merge base with ${run.baseBranch})` : ''}, sha256 ${policy.digest.slice(0, 12)}`
    : 'no policy file: the flags and defaults';
  io.stdout.write(`policy: ${from}\n`);
  for (const line of effectivePolicyLines(effective)) io.stdout.write(`${line}\n`);
  if (run.edited) say(run.edited);
  return EXIT.ok;
}
