import { readFileSync } from 'node:fs';
import { mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Bundle,
  type BundleFile,
  type BundlePatch,
  MAX_BUNDLE_BYTES,
} from '../src/bundle/bundle.js';
import { bundleCoverage } from '../src/bundle/bundle-coverage.js';
import { bundleProblem } from '../src/bundle/check-bundle.js';
import { makeBundle } from '../src/bundle/make-bundle.js';
import { readBundle } from '../src/bundle/read-bundle.js';
import { verifyBundle } from '../src/bundle/verify-bundle.js';
import { checkBundleTarget } from '../src/bundle/write-bundle.js';
import type { GithubPull } from '../src/ci/github-pull.js';
import { readWorkflowRun, type WorkflowRun } from '../src/ci/workflow-run.js';
import { CliError } from '../src/errors.js';
import type { Gathered } from '../src/gather-reports.js';
import { patchCoverage } from '../src/patch/patch-coverage.js';
import { summarise } from '../src/reports/merge.js';
import type { FileCoverage } from '../src/reports/types.js';

// GitHub's example workflow_run events (fixtures/README.md): one listing pull request 2, one
// listing none, as GitHub sends a fork's.
const fixture = (name: string) =>
  fileURLToPathString(new URL(`./fixtures/github/${name}`, import.meta.url));
function fileURLToPathString(url: URL): string {
  return decodeURIComponent(url.pathname);
}
const WITH_PULLS = fixture('workflow_run.completed.with-pull-requests.payload.json');
const NO_PULLS = fixture('workflow_run.completed.payload.json');
const PR_HEAD = 'ec26c3e57ca3a959ca5aad62de7213c562f8c821';
const FORK_HEAD = '3484a3fb816e0859fd6e1cea078d76385ff50625';

/** What the tests change of a `workflow_run` event. */
interface EventPayload {
  workflow_run: {
    event: string;
    head_sha: string;
    head_branch: string;
    head_repository: { full_name: string };
    pull_requests: { number: number; head: { sha: string; ref: string }; base: { ref: string } }[];
  };
}

/** The fixture's run as GitHub sends it for a `pull_request` run (the fixture's is a dispatch). */
function eventOf(path: string, change: (payload: EventPayload) => void = () => {}) {
  const payload = JSON.parse(readFileSync(path, 'utf8')) as EventPayload;
  const run = payload.workflow_run;
  run.event = 'pull_request';
  // A pull request's run is at its head: GitHub lists the pull request at the run's head.
  const [listed] = run.pull_requests;
  if (listed) {
    run.head_sha = listed.head.sha;
    run.head_branch = listed.head.ref;
  }
  change(payload);
  const text = JSON.stringify(payload);
  return readWorkflowRun(
    { GITHUB_EVENT_NAME: 'workflow_run', GITHUB_EVENT_PATH: path },
    () => text,
  );
}

const lines = (hits: number[]): FileCoverage => {
  const map = new Map(hits.map((count, index) => [index + 1, count]));
  return {
    path: 'src/a.js',
    covered: hits.filter((h) => h > 0).length,
    coverable: hits.length,
    units: () => map,
  };
};

function gathered(files: FileCoverage[]): Gathered {
  return {
    repoRoot: '/repo',
    reports: [],
    files,
    summary: summarise(files),
    branches: undefined,
    clashes: [],
    unknown: [],
  };
}

const changed = new Map([['src/a.js', [{ start: 4, count: 4 }]]]);

/** A bundle of `src/a.js` (lines 1-4 run, 5-7 not) changed at lines 4-7, for `commit`. */
function goodBundle(commit = PR_HEAD, pullRequest = 2): Bundle {
  const files = [lines([1, 1, 1, 1, 0, 0, 0]), { path: 'README.md', covered: 0, coverable: 0 }];
  const coverage = patchCoverage(changed, files);
  return makeBundle({
    read: gathered(files),
    patch: {
      patch: {
        base_branch: 'master',
        base_ref: 'origin/master',
        merge_base: 'f95f852bd8fca8fcc58a9a2d6c842781e32a215e',
        ...coverage,
        target: null,
        target_source: null,
        outcome: null,
        decided_by: 'cli',
      },
      changed,
      skipped: null,
    },
    commit,
    pullRequest,
    branch: 'changes',
    baseBranch: 'master',
    version: '0.1.0',
  });
}

const pull = (change: Partial<GithubPull> = {}): GithubPull => ({
  number: 2,
  state: 'open',
  headSha: FORK_HEAD,
  headRepository: 'forker/octo-repo',
  baseRef: 'master',
  baseRepository: 'octo-org/octo-repo',
  ...change,
});
const noLookup = async (): Promise<GithubPull> => {
  throw new Error('no look-up expected');
};

async function refusal(promise: Promise<unknown>): Promise<{ message: string; exit: number }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof CliError) return { message: error.message, exit: error.exitCode };
    throw error;
  }
  throw new Error('not refused');
}

describe('a bundle', () => {
  it('holds the lines and the changed ranges, and measures back to the same figures', () => {
    const bundle = goodBundle();
    expect(bundleProblem(bundle)).toBeNull();
    expect(bundle).toEqual({
      covgate_bundle: 1,
      cli_version: '0.1.0',
      commit: PR_HEAD,
      pull_request: 2,
      branch: 'changes',
      base_branch: 'master',
      files: [
        { path: 'README.md', covered: 0, coverable: 0 },
        {
          path: 'src/a.js',
          covered: 4,
          coverable: 7,
          lines: { coverable: [1, 2, 3, 4, 5, 6, 7], covered: [1, 2, 3, 4] },
        },
      ],
      patch: {
        base_ref: 'origin/master',
        merge_base: 'f95f852bd8fca8fcc58a9a2d6c842781e32a215e',
        changed: [{ path: 'src/a.js', ranges: [[4, 4]] }],
      },
      patch_skipped: null,
    });
    const { read, patch } = bundleCoverage(bundle, {
      repoRoot: '/repo',
      baseBranch: 'master',
      patchTarget: 80,
      ignored: null,
    });
    expect(read.summary).toEqual({ covered: 4, coverable: 7, percent: 57.14, files: 2 });
    expect(patch.patch).toMatchObject({
      covered: 1,
      coverable: 4,
      percent: 25,
      target: 80,
      outcome: 'fail',
      files: [{ path: 'src/a.js', covered: 1, coverable: 4, uncovered_lines: [5, 6, 7] }],
    });
  });

  it("leaves out what the trusted job's policy ignores", () => {
    const { read, patch } = bundleCoverage(goodBundle(), {
      repoRoot: '/repo',
      baseBranch: 'master',
      ignored: (path) => path.startsWith('src/'),
    });
    expect(read.summary).toEqual({ covered: 0, coverable: 0, percent: 0, files: 1 });
    expect(patch.patch).toMatchObject({ coverable: 0, percent: null, changed_files: 0 });
  });
});

describe("a bundle's job", () => {
  it('is a pull request whose head commit is known in full, else exit 2 before the tests run', () => {
    const target = { repo: 'web', branch: 'changes', commit: PR_HEAD, pullRequest: 2 };
    expect(checkBundleTarget(target)).toEqual({ commit: PR_HEAD, pullRequest: 2 });
    const { pullRequest: _, ...push } = target;
    expect(() => checkBundleTarget(push)).toThrow(
      "--bundle is for a pull request's job, and this job names no pull request (GitHub Actions: run it on pull_request)",
    );
    expect(() => checkBundleTarget({ ...target, commit: 'ec26c3e' })).toThrow(
      "--bundle needs the pull request's head commit in full (40 or 64 hex characters); --commit ec26c3e is not",
    );
    const { commit: __, ...noCommit } = target;
    expect(() => checkBundleTarget(noCommit)).toThrow(
      "--bundle needs the pull request's head commit in full (40 or 64 hex characters); none was detected",
    );
  });
});

describe('a hostile bundle file', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'covgate-bundle-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const tampered = async (change: (bundle: Bundle) => void) => {
    const bundle = goodBundle();
    change(bundle);
    const path = join(dir, 'b.json');
    await writeFile(path, JSON.stringify(bundle));
    return refusal(readBundle(path, 'b.json'));
  };
  const second = (b: Bundle) => b.files[1] as BundleFile;
  const lines = (b: Bundle) => second(b).lines as NonNullable<BundleFile['lines']>;
  const changedEntry = (b: Bundle) =>
    (b.patch as BundlePatch).changed[0] as BundlePatch['changed'][number];
  const cases: [string, (bundle: Bundle) => void, string][] = [
    [
      'an unknown top-level key',
      (b) => Object.assign(b, { run: 'x' }),
      'the bundle: unknown key "run"',
    ],
    [
      'an unknown key in a file',
      (b) => Object.assign(second(b), { exec: 'rm -rf /' }),
      'files.1: unknown key "exec"',
    ],
    [
      'a missing key',
      (b) => Reflect.deleteProperty(b, 'commit'),
      'the bundle: missing key "commit"',
    ],
    [
      'another version',
      (b) => Object.assign(b, { covgate_bundle: 2 }),
      'covgate_bundle: not a bundle version this covgate reads (it reads version 1)',
    ],
    [
      'a path that climbs out',
      (b) => (second(b).path = 'src/../../etc/passwd'),
      'files[1].path "src/../../etc/passwd": a ".." segment',
    ],
    [
      'an absolute path',
      (b) => (second(b).path = '/etc/passwd'),
      'files[1].path "/etc/passwd": an absolute path',
    ],
    [
      'a changed path that climbs out',
      (b) => (changedEntry(b).path = '../x.js'),
      'patch.changed[0].path "../x.js": a ".." segment',
    ],
    [
      'a file listed twice',
      (b) => b.files.push({ ...second(b) }),
      'files[2].path "src/a.js": listed twice',
    ],
    [
      'more covered than coverable',
      (b) => (second(b).covered = 8),
      'files[1]: covered is more than coverable',
    ],
    [
      'a covered line that is not coverable',
      (b) => lines(b).covered.push(9),
      'files[1].lines: a covered line that is not coverable',
    ],
    [
      'lines out of order',
      (b) => lines(b).coverable.reverse(),
      'files[1].lines: coverable lines not ascending and unique',
    ],
    [
      'a commit that is not hex',
      (b) => (b.commit = '$(curl evil)'),
      'commit: must match pattern "^([0-9a-f]{40}|[0-9a-f]{64})$"',
    ],
    ['a negative count', (b) => (second(b).covered = -1), 'files.1.covered: must be >= 0'],
    [
      'a control character in a path',
      (b) => (second(b).path = 'src/a\u001b[31m.js'),
      'files.1.path: must match pattern "^[^\\u0000-\\u001f\\u007f]+$"',
    ],
  ];
  it.each(cases)('is refused (exit 2) for %s, naming it', async (_, change, problem) => {
    expect(await tampered(change)).toEqual({
      message: `--bundle b.json: not a valid bundle: ${problem}; nothing was posted`,
      exit: 2,
    });
  });

  it('is refused when it is not JSON', async () => {
    const path = join(dir, 'broken.json');
    await writeFile(path, '{"covgate_bundle": 1,');
    expect(await refusal(readBundle(path, 'broken.json'))).toEqual({
      message: '--bundle broken.json: not JSON; nothing was posted',
      exit: 2,
    });
  });

  it('is refused unread when it is larger than the bound', async () => {
    const path = join(dir, 'huge.json');
    await writeFile(path, '');
    await truncate(path, MAX_BUNDLE_BYTES + 1);
    expect(await refusal(readBundle(path, 'huge.json'))).toEqual({
      message: `--bundle huge.json: ${MAX_BUNDLE_BYTES + 1} bytes, more than a bundle may have (${MAX_BUNDLE_BYTES}); nothing was posted`,
      exit: 2,
    });
  });
});

describe('a bundle checked against the workflow_run event', () => {
  it("is posted as the listed pull request's run, on its base branch", async () => {
    const run = eventOf(WITH_PULLS);
    expect(await verifyBundle(goodBundle(), run, noLookup)).toEqual({
      commit: PR_HEAD,
      pullRequest: 2,
      branch: 'changes',
      baseBranch: 'master',
      fork: false,
    });
  });

  it('is refused when it is of another commit', async () => {
    const run = eventOf(WITH_PULLS);
    const other = 'f95f852bd8fca8fcc58a9a2d6c842781e32a215e';
    expect(await refusal(verifyBundle(goodBundle(other), run, noLookup))).toEqual({
      message: `the bundle is of commit ${other}, and the workflow run's head commit is ${PR_HEAD}: it belongs to another run; nothing was posted`,
      exit: 2,
    });
  });

  it('is refused when it names another pull request', async () => {
    const run = eventOf(WITH_PULLS);
    expect(await refusal(verifyBundle(goodBundle(PR_HEAD, 7), run, noLookup))).toEqual({
      message:
        'the bundle names pull request #7, and the workflow run belongs to #2; nothing was posted',
      exit: 2,
    });
  });

  it('is refused when the triggering run was not a pull request', async () => {
    const run = { ...eventOf(WITH_PULLS), event: 'push' };
    expect(await refusal(verifyBundle(goodBundle(), run, noLookup))).toEqual({
      message:
        "the workflow run that triggered this job ran on push, not pull_request: a bundle is posted only for a pull request's run",
      exit: 2,
    });
  });

  it("is refused when the listed pull request's head moved on", async () => {
    const run = eventOf(WITH_PULLS, (p) => {
      for (const listed of p.workflow_run.pull_requests) listed.head.sha = FORK_HEAD;
    });
    expect(run.headSha).toBe(PR_HEAD);
    expect((await refusal(verifyBundle(goodBundle(), run, noLookup))).message).toBe(
      `pull request #2 is at ${FORK_HEAD}, not at the workflow run's head commit ${PR_HEAD}; nothing was posted`,
    );
  });

  describe("for a fork's pull request, which the event does not list", () => {
    const forkRun = (): WorkflowRun =>
      eventOf(NO_PULLS, (p) => {
        p.workflow_run.head_repository.full_name = 'forker/octo-repo';
        p.workflow_run.head_branch = 'master';
      });
    const asked: [string, number][] = [];
    const lookup = (answer: GithubPull) => async (repository: string, number: number) => {
      asked.push([repository, number]);
      return answer;
    };

    it("asks GitHub for the pull request and posts it under the fork owner's label", async () => {
      const bundle = goodBundle(FORK_HEAD);
      expect(await verifyBundle(bundle, forkRun(), lookup(pull()))).toEqual({
        commit: FORK_HEAD,
        pullRequest: 2,
        branch: 'forker:master',
        baseBranch: 'master',
        fork: true,
      });
      expect(asked).toEqual([['octo-org/octo-repo', 2]]);
    });

    const refusals: [string, Partial<GithubPull>, string][] = [
      ['closed', { state: 'closed' }, 'pull request #2 is closed; nothing was posted'],
      [
        'from another fork',
        { headRepository: 'mallory/octo-repo' },
        'pull request #2 comes from mallory/octo-repo, not from forker/octo-repo; nothing was posted',
      ],
      [
        'at another commit',
        { headSha: PR_HEAD },
        `pull request #2 is at ${PR_HEAD}, not at the workflow run's head commit ${FORK_HEAD}; nothing was posted`,
      ],
      [
        'of another repository',
        { baseRepository: 'mallory/other' },
        'pull request #2 is a pull request of mallory/other; nothing was posted',
      ],
      [
        'targeting another base than the patch',
        { baseRef: 'release' },
        "the bundle's patch is measured against master, and pull request #2 targets release; nothing was posted",
      ],
    ];
    it.each(refusals)('refuses a pull request %s', async (_, change, message) => {
      expect(
        await refusal(verifyBundle(goodBundle(FORK_HEAD), forkRun(), lookup(pull(change)))),
      ).toEqual({ message, exit: 2 });
    });
  });

  it.each([
    ['Gitea', { GITEA_ACTIONS: 'true' }],
    ['Forgejo', { GITEA_ACTIONS: 'true', FORGEJO_ACTIONS: 'true' }],
  ])(
    'is not read on %s Actions, whose workflow_run event lists no pull request',
    (name, runner) => {
      const read = () => {
        throw new Error('the event file is not read');
      };
      expect(() =>
        readWorkflowRun(
          {
            ...runner,
            GITHUB_ACTIONS: 'true',
            GITHUB_EVENT_NAME: 'workflow_run',
            GITHUB_EVENT_PATH: 'event.json',
          },
          read,
        ),
      ).toThrow(
        expect.objectContaining({
          exitCode: 2,
          message: `report --bundle posts from GitHub Actions only: on ${name} Actions a workflow_run event names no pull request and no head repository to check a bundle against; post from the pull request's own job with an API token instead`,
        }),
      );
    },
  );

  it('is read only in a workflow_run job', () => {
    expect(() => readWorkflowRun({ GITHUB_EVENT_NAME: 'pull_request' })).toThrow(
      "report --bundle posts from a GitHub Actions job triggered by workflow_run (this job's event: pull_request): the bundle is checked against that event's head commit and pull request",
    );
  });
});
