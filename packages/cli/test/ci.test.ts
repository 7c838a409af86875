import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { itReturns } from '@covgate/test-support/value-table';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunContext } from '../src/ci/context.js';
import { detectContext, repoFromRemote } from '../src/ci/detect.js';
import { resolveTarget } from '../src/gate/target.js';

// GitHub's own example of a `pull_request` `opened` webhook payload (the event file of such a
// workflow run), from octokit/webhooks: see fixtures/README.md.
const PR_EVENT = fileURLToPath(
  new URL('./fixtures/github/pull_request.opened.json', import.meta.url),
);
const PR_HEAD = 'ec26c3e57ca3a959ca5aad62de7213c562f8c821';
const PR_BASE = 'f95f852bd8fca8fcc58a9a2d6c842781e32a215e';
// GitHub's example `merge_group` `checks_requested` payload (a merge queue's run), from
// octokit/webhooks: see fixtures/README.md. Its queue commit, branch and target.
const QUEUE_EVENT = fileURLToPath(
  new URL('./fixtures/github/merge_group.checks_requested.json', import.meta.url),
);
const QUEUE_COMMIT = '2ffea6db159f6b6c47a24e778fb9ef40cf6b1c7d';
const QUEUE_BRANCH = 'gh-readonly-queue/main/pr-104-929f8209d40f77f4abc622a499c93a83babdbe64';
// What GitHub runs a pull_request workflow on: the merge commit of refs/pull/2/merge.
const MERGE_COMMIT = '9a2c5e1e8b0a4c0f6f3b1d7e2c4a6b8d0e1f2a3b';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'covgate-cli-ci-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const noGit = () => undefined;
const detect = (env: NodeJS.ProcessEnv) => detectContext(env, dir, noGit);

const github = {
  GITHUB_ACTIONS: 'true',
  GITHUB_REPOSITORY: 'Codertocat/Hello-World',
};

describe('GitHub Actions', () => {
  it("names the repository's URL from GITHUB_SERVER_URL and GITHUB_REPOSITORY", () => {
    expect(
      detect({
        ...github,
        GITHUB_SERVER_URL: 'https://github.example.com/',
        GITHUB_REF: 'refs/heads/main',
        GITHUB_SHA: 'abcdef1234567',
      }).repoUrl,
    ).toBe('https://github.example.com/Codertocat/Hello-World');
    expect(detect({ ...github, GITHUB_REF: 'refs/heads/main' }).repoUrl).toBeUndefined();
  });

  it('push: the pushed branch and GITHUB_SHA', () => {
    expect(
      detect({
        ...github,
        GITHUB_EVENT_NAME: 'push',
        GITHUB_REF: 'refs/heads/main',
        GITHUB_REF_NAME: 'main',
        GITHUB_REF_TYPE: 'branch',
        GITHUB_SHA: 'abcdef1234567',
      }),
    ).toEqual({ service: 'github', repo: 'Hello-World', branch: 'main', commit: 'abcdef1234567' });
  });

  it.each([
    {
      name: 'pull_request: the head commit from the event file, never GITHUB_SHA (the merge commit)',
      event: {
        GITHUB_EVENT_NAME: 'pull_request',
        GITHUB_REF: 'refs/pull/2/merge',
        GITHUB_REF_NAME: '2/merge',
        GITHUB_SHA: MERGE_COMMIT,
      },
    },
    {
      name: 'pull_request_target: the head commit, not GITHUB_SHA (the base branch head)',
      event: {
        GITHUB_EVENT_NAME: 'pull_request_target',
        GITHUB_REF: 'refs/heads/master',
        GITHUB_REF_NAME: 'master',
        GITHUB_SHA: PR_BASE,
      },
    },
  ])('$name', ({ event }) => {
    expect(
      detect({
        ...github,
        ...event,
        GITHUB_EVENT_PATH: PR_EVENT,
        GITHUB_HEAD_REF: 'changes',
        GITHUB_BASE_REF: 'master',
      }),
    ).toEqual({
      service: 'github',
      repo: 'Hello-World',
      branch: 'changes',
      baseBranch: 'master',
      pullRequest: '2',
      commit: PR_HEAD,
    });
  });

  it('takes the head branch from the event file when GITHUB_HEAD_REF is not set', () => {
    expect(
      detect({
        ...github,
        GITHUB_EVENT_NAME: 'pull_request',
        GITHUB_EVENT_PATH: PR_EVENT,
        GITHUB_REF: 'refs/pull/2/merge',
        GITHUB_SHA: MERGE_COMMIT,
      }),
    ).toMatchObject({ branch: 'changes', baseBranch: 'master', commit: PR_HEAD });
  });

  it('honours GITHUB_BASE_REF and GITHUB_HEAD_REF without an event file, and posts no merge commit', () => {
    expect(
      detect({
        ...github,
        GITHUB_EVENT_NAME: 'pull_request',
        GITHUB_REF: 'refs/pull/17/merge',
        GITHUB_HEAD_REF: 'feature/login',
        GITHUB_BASE_REF: 'release-9',
        GITHUB_SHA: MERGE_COMMIT,
      }),
    ).toEqual({
      service: 'github',
      repo: 'Hello-World',
      branch: 'feature/login',
      baseBranch: 'release-9',
      pullRequest: '17',
      commitUnknown:
        "the pull request's head commit is not in the event file (GITHUB_EVENT_PATH is not set), and GITHUB_SHA is the merge commit",
    });
  });

  it('survives a pull_request_target event file that cannot be read (env-ci throws on it)', () => {
    const missing = join(dir, 'no-such-event.json');
    expect(
      detect({
        ...github,
        GITHUB_EVENT_NAME: 'pull_request_target',
        GITHUB_EVENT_PATH: missing,
        GITHUB_REF: 'refs/heads/main',
        GITHUB_HEAD_REF: 'topic',
        GITHUB_BASE_REF: 'main',
        GITHUB_SHA: PR_BASE,
      }),
    ).toEqual({
      service: 'github',
      repo: 'Hello-World',
      branch: 'topic',
      baseBranch: 'main',
      commitUnknown: `the pull request's head commit is not in the event file (${missing} cannot be read: ENOENT), and GITHUB_SHA is the merge commit`,
    });
  });

  it('says so when the event file is not JSON', async () => {
    const broken = join(dir, 'broken-event.json');
    await writeFile(broken, '{"pull_request": ');
    expect(
      detect({
        ...github,
        GITHUB_EVENT_NAME: 'pull_request',
        GITHUB_EVENT_PATH: broken,
        GITHUB_HEAD_REF: 'topic',
        GITHUB_BASE_REF: 'main',
        GITHUB_SHA: MERGE_COMMIT,
      }).commitUnknown,
    ).toBe(
      `the pull request's head commit is not in the event file (${broken} is not a JSON object), and GITHUB_SHA is the merge commit`,
    );
  });

  it('tag: names the tag and no branch', () => {
    expect(
      detect({
        ...github,
        GITHUB_EVENT_NAME: 'push',
        GITHUB_REF: 'refs/tags/v1.2.0',
        GITHUB_REF_NAME: 'v1.2.0',
        GITHUB_REF_TYPE: 'tag',
        GITHUB_SHA: PR_HEAD,
      }),
    ).toEqual({ service: 'github', repo: 'Hello-World', tag: 'v1.2.0', commit: PR_HEAD });
    // Runners older than GITHUB_REF_TYPE (2021) set only GITHUB_REF.
    expect(
      detect({ ...github, GITHUB_EVENT_NAME: 'release', GITHUB_REF: 'refs/tags/v2.0.0' }),
    ).toEqual({ service: 'github', repo: 'Hello-World', tag: 'v2.0.0' });
  });
});

// Pull request payloads as a Gitea and a Forgejo instance send them (the event file of their
// Actions runs), from woodpecker-ci/woodpecker's fixtures: see fixtures/README.md.
const GITEA_PR_EVENT = fileURLToPath(
  new URL('./fixtures/gitea/pull_request.synchronized.json', import.meta.url),
);
const GITEA_PR_HEAD = '788ed8d02d3b7fcfcf6386dbcbca696aa1d4dc25';
const FORGEJO_PR_EVENT = fileURLToPath(
  new URL('./fixtures/forgejo/pull_request.reopened.json', import.meta.url),
);
const FORGEJO_PR_HEAD = '36b5813240a9d2daa29b05046d56a53e18f39a3e';

// What Gitea's act_runner sets for a pull request's run (both runners also set
// GITHUB_ACTIONS, which env-ci takes for GitHub Actions).
const giteaPull = {
  GITHUB_ACTIONS: 'true',
  GITEA_ACTIONS: 'true',
  GITHUB_SERVER_URL: 'http://127.0.0.1:3000/',
  GITHUB_API_URL: 'http://127.0.0.1:3000/api/v1',
  GITHUB_REPOSITORY: 'Test-CI/multi-line-secrets',
  GITHUB_EVENT_NAME: 'pull_request',
  GITHUB_EVENT_PATH: GITEA_PR_EVENT,
  GITHUB_REF: 'refs/pull/2/head',
  GITHUB_REF_NAME: '2/head',
  GITHUB_HEAD_REF: 'test-patch-1',
  GITHUB_BASE_REF: 'main',
  GITHUB_SHA: GITEA_PR_HEAD,
};

describe('Gitea and Forgejo Actions', () => {
  it('Gitea pull_request: service gitea, the head commit, branch, base, number and the instance URL', () => {
    expect(detect(giteaPull)).toEqual({
      service: 'gitea',
      repo: 'multi-line-secrets',
      repoUrl: 'http://127.0.0.1:3000/Test-CI/multi-line-secrets',
      branch: 'test-patch-1',
      baseBranch: 'main',
      pullRequest: '2',
      commit: GITEA_PR_HEAD,
    });
  });

  it('Forgejo pull_request (its runner sets FORGEJO_ACTIONS and GITEA_ACTIONS): service forgejo', () => {
    expect(
      detect({
        GITHUB_ACTIONS: 'true',
        GITEA_ACTIONS: 'true',
        FORGEJO_ACTIONS: 'true',
        GITHUB_SERVER_URL: 'https://codeberg.org',
        GITHUB_REPOSITORY: 'test_it/test_ci_thing',
        GITHUB_EVENT_NAME: 'pull_request',
        GITHUB_EVENT_PATH: FORGEJO_PR_EVENT,
        GITHUB_REF: 'refs/pull/1/head',
        GITHUB_HEAD_REF: '6543-patch-1',
        GITHUB_BASE_REF: 'main',
        GITHUB_SHA: FORGEJO_PR_HEAD,
      }),
    ).toEqual({
      service: 'forgejo',
      repo: 'test_ci_thing',
      repoUrl: 'https://codeberg.org/test_it/test_ci_thing',
      branch: '6543-patch-1',
      baseBranch: 'main',
      pullRequest: '1',
      commit: FORGEJO_PR_HEAD,
    });
  });

  it('pull_request_target: the head commit from the event file, not GITHUB_SHA (the base head)', () => {
    expect(
      detect({
        ...giteaPull,
        GITHUB_EVENT_NAME: 'pull_request_target',
        GITHUB_REF: 'refs/heads/main',
        GITHUB_SHA: '29be01c073851cf0db0c6a466e396b725a670453',
      }),
    ).toMatchObject({ service: 'gitea', commit: GITEA_PR_HEAD, pullRequest: '2' });
  });

  it('without its event file: GITHUB_SHA of refs/pull/N/head is the head commit, the number from the ref', () => {
    expect(detect({ ...giteaPull, GITHUB_EVENT_PATH: join(dir, 'gone.json') })).toEqual({
      service: 'gitea',
      repo: 'multi-line-secrets',
      repoUrl: 'http://127.0.0.1:3000/Test-CI/multi-line-secrets',
      branch: 'test-patch-1',
      baseBranch: 'main',
      pullRequest: '2',
      commit: GITEA_PR_HEAD,
    });
  });

  it("without its event file on another ref: no commit, since GITHUB_SHA is not the pull request's head", () => {
    const context = detect({
      ...giteaPull,
      GITHUB_EVENT_NAME: 'pull_request_target',
      GITHUB_EVENT_PATH: undefined,
      GITHUB_REF: 'refs/heads/main',
      GITHUB_SHA: '29be01c073851cf0db0c6a466e396b725a670453',
    });
    expect(context.commit).toBeUndefined();
    expect(context.commitUnknown).toMatch(
      /^the pull request's head commit is not in the event file/,
    );
  });

  it('push: the pushed branch and GITHUB_SHA, service gitea', () => {
    expect(
      detect({
        GITHUB_ACTIONS: 'true',
        GITEA_ACTIONS: 'true',
        GITHUB_REPOSITORY: 'Test-CI/multi-line-secrets',
        GITHUB_EVENT_NAME: 'push',
        GITHUB_REF: 'refs/heads/main',
        GITHUB_REF_NAME: 'main',
        GITHUB_REF_TYPE: 'branch',
        GITHUB_SHA: GITEA_PR_HEAD,
      }),
    ).toEqual({
      service: 'gitea',
      repo: 'multi-line-secrets',
      branch: 'main',
      commit: GITEA_PR_HEAD,
    });
  });
});

const gitlab = {
  GITLAB_CI: 'true',
  CI_PROJECT_PATH: 'group/sub/project',
};

describe('GitHub merge queues', () => {
  const queue = {
    GITHUB_ACTIONS: 'true',
    GITHUB_REPOSITORY: 'octo-org/octo-repo',
    GITHUB_EVENT_NAME: 'merge_group',
    GITHUB_REF: `refs/heads/${QUEUE_BRANCH}`,
    GITHUB_REF_NAME: QUEUE_BRANCH,
    GITHUB_REF_TYPE: 'branch',
    GITHUB_SHA: QUEUE_COMMIT,
  };

  it("merge_group: the queue's commit and branch, its target as the base branch, no pull request", () => {
    expect(detect({ ...queue, GITHUB_EVENT_PATH: QUEUE_EVENT })).toEqual({
      service: 'github',
      repo: 'octo-repo',
      branch: QUEUE_BRANCH,
      commit: QUEUE_COMMIT,
      baseBranch: 'main',
    });
  });

  it('merge_group without its event file: the target read from the queue branch, slashes kept', () => {
    const branch = 'gh-readonly-queue/release/2.x/pr-7-0123abcd';
    expect(
      detect({
        ...queue,
        GITHUB_REF: `refs/heads/${branch}`,
        GITHUB_REF_NAME: branch,
        GITHUB_EVENT_PATH: join(dir, 'missing.json'),
      }),
    ).toEqual({
      service: 'github',
      repo: 'octo-repo',
      branch,
      commit: QUEUE_COMMIT,
      baseBranch: 'release/2.x',
    });
  });
});

describe('GitLab CI', () => {
  it("names the repository's URL from CI_PROJECT_URL", () => {
    expect(
      detect({
        ...gitlab,
        CI_PROJECT_URL: 'https://gitlab.example.com/group/sub/project',
        CI_COMMIT_BRANCH: 'main',
      }).repoUrl,
    ).toBe('https://gitlab.example.com/group/sub/project');
  });

  it('branch pipeline: CI_COMMIT_BRANCH and CI_COMMIT_SHA', () => {
    expect(
      detect({
        ...gitlab,
        CI_COMMIT_BRANCH: 'main',
        CI_COMMIT_REF_NAME: 'main',
        CI_COMMIT_SHA: 'fedcba9876543210fedcba9876543210fedcba98',
      }),
    ).toEqual({
      service: 'gitlab',
      repo: 'project',
      branch: 'main',
      commit: 'fedcba9876543210fedcba9876543210fedcba98',
    });
  });

  it('merge request pipeline: the source branch, its head commit, the target as base, the !IID', () => {
    expect(
      detect({
        ...gitlab,
        CI_COMMIT_REF_NAME: 'feature/x',
        CI_COMMIT_SHA: '1111111111111111111111111111111111111111',
        CI_MERGE_REQUEST_ID: '900173',
        CI_MERGE_REQUEST_IID: '7',
        CI_MERGE_REQUEST_SOURCE_BRANCH_NAME: 'feature/x',
        CI_MERGE_REQUEST_TARGET_BRANCH_NAME: 'develop',
        CI_MERGE_REQUEST_SOURCE_BRANCH_SHA: '',
      }),
    ).toEqual({
      service: 'gitlab',
      repo: 'project',
      branch: 'feature/x',
      baseBranch: 'develop',
      pullRequest: '7',
      commit: '1111111111111111111111111111111111111111',
    });
  });

  it('merged results pipeline: CI_MERGE_REQUEST_SOURCE_BRANCH_SHA, not the merge result', () => {
    expect(
      detect({
        ...gitlab,
        CI_COMMIT_REF_NAME: 'feature/x',
        CI_COMMIT_SHA: '2222222222222222222222222222222222222222',
        CI_MERGE_REQUEST_ID: '900173',
        CI_MERGE_REQUEST_IID: '7',
        CI_MERGE_REQUEST_EVENT_TYPE: 'merged_result',
        CI_MERGE_REQUEST_SOURCE_BRANCH_NAME: 'feature/x',
        CI_MERGE_REQUEST_TARGET_BRANCH_NAME: 'main',
        CI_MERGE_REQUEST_SOURCE_BRANCH_SHA: '3333333333333333333333333333333333333333',
        CI_MERGE_REQUEST_TARGET_BRANCH_SHA: '4444444444444444444444444444444444444444',
      }),
    ).toMatchObject({
      branch: 'feature/x',
      baseBranch: 'main',
      commit: '3333333333333333333333333333333333333333',
    });
  });

  it('tag pipeline: names the tag and no branch (CI_COMMIT_REF_NAME is the tag)', () => {
    expect(
      detect({
        ...gitlab,
        CI_COMMIT_TAG: 'v1.2.0',
        CI_COMMIT_REF_NAME: 'v1.2.0',
        CI_COMMIT_SHA: '5555555555555555555555555555555555555555',
      }),
    ).toEqual({
      service: 'gitlab',
      repo: 'project',
      tag: 'v1.2.0',
      commit: '5555555555555555555555555555555555555555',
    });
  });
});

describe('other CI services, as env-ci reports them', () => {
  it('a CircleCI pull request: the head branch, env-ci commit', () => {
    expect(
      detect({
        CIRCLECI: 'true',
        CIRCLE_BRANCH: 'topic',
        CIRCLE_SHA1: 'abcdefabcdefabcdefabcdefabcdefabcdefabcd',
        CIRCLE_PR_NUMBER: '12',
        CIRCLE_PROJECT_USERNAME: 'acme',
        CIRCLE_PROJECT_REPONAME: 'web',
      }),
    ).toMatchObject({
      service: 'circleci',
      repo: 'web',
      branch: 'topic',
      pullRequest: '12',
      commit: 'abcdefabcdefabcdefabcdefabcdefabcdefabcd',
    });
  });

  it('a tag build names no branch (CircleCI sets none, Travis sets the tag as the branch)', () => {
    expect(
      detect({ CIRCLECI: 'true', CIRCLE_TAG: 'v3.0.0', CIRCLE_SHA1: 'abcdef1' }),
    ).toMatchObject({ service: 'circleci', tag: 'v3.0.0', commit: 'abcdef1' });
    const travis = detect({
      TRAVIS: 'true',
      TRAVIS_TAG: 'v3.0.0',
      TRAVIS_BRANCH: 'v3.0.0',
      TRAVIS_COMMIT: 'abcdef1',
    });
    expect(travis).toMatchObject({ service: 'travis', tag: 'v3.0.0' });
    expect(travis.branch).toBeUndefined();
  });

  it('falls back to the git checkout outside CI', () => {
    const answers: Record<string, string> = {
      'config --get remote.origin.url': 'git@github.com:acme/widgets.git',
    };
    // env-ci runs git itself for branch and commit; covgate asks only for the repository.
    const context = detectContext({}, dir, (args) => answers[args.join(' ')]);
    expect(context.repo).toBe('widgets');
  });

  itReturns(repoFromRemote, 'names the repository of remote %s %s', [
    ['git@github.com:acme/widgets.git', 'widgets'],
    ['https://gitlab.com/group/sub/project.git', 'project'],
    ['https://github.com/acme/widgets/', 'widgets'],
    ['ssh://git@host:2222/acme/widgets', 'widgets'],
  ]);
});

describe('what a run is posted as', () => {
  const detected = (context: RunContext) => () => context;

  it('asks for --branch in one line on a tag build, and takes it', () => {
    const tag = detected({ repo: 'web', tag: 'v1.2.0', commit: 'abcdef1' });
    expect(() => resolveTarget({}, tag)).toThrow(
      expect.objectContaining({
        exitCode: 2,
        message:
          'this is a build of tag v1.2.0, not of a branch: pass --branch NAME (the branch whose history the run belongs to, e.g. --branch main)',
      }),
    );
    expect(resolveTarget({ branch: 'main' }, tag)).toEqual({
      target: { repo: 'web', branch: 'main', commit: 'abcdef1' },
      warnings: [],
    });
  });

  it('warns when a pull request commit cannot be told, unless --commit names it', () => {
    const pr = detected({
      repo: 'web',
      branch: 'topic',
      baseBranch: 'main',
      commitUnknown: 'the reason',
    });
    expect(resolveTarget({}, pr)).toEqual({
      target: { repo: 'web', branch: 'topic', baseBranch: 'main' },
      warnings: ['no commit is posted: the reason; pass --commit SHA'],
    });
    expect(resolveTarget({ commit: 'abcdef1' }, pr).warnings).toEqual([]);
  });

  it('prefers flags, drops a detected commit that is not hex, refuses a --commit that is not', () => {
    const ci = detected({ repo: 'web', branch: 'topic', commit: 'build-42', baseBranch: 'main' });
    expect(resolveTarget({ repo: 'api', baseBranch: 'release' }, ci).target).toEqual({
      repo: 'api',
      branch: 'topic',
      baseBranch: 'release',
    });
    expect(() => resolveTarget({ commit: 'xyz' }, ci)).toThrow(
      '--commit xyz: not a commit id (7 to 64 hexadecimal characters)',
    );
  });

  it("posts the CI's repository URL when the service takes it, and leaves out one it would refuse", () => {
    const withUrl = (repoUrl: string) =>
      resolveTarget({}, detected({ repo: 'web', branch: 'main', repoUrl })).target.repoUrl;
    expect(withUrl('https://github.com/acme/web')).toBe('https://github.com/acme/web');
    expect(withUrl('http://gitlab.internal/acme/web')).toBe('http://gitlab.internal/acme/web');
    expect(withUrl('https://gitlab-ci-token:secret@gitlab.com/acme/web')).toBeUndefined();
    expect(withUrl('https://github.com/acme/web?x=1')).toBeUndefined();
    expect(withUrl('ssh://git@github.com/acme/web')).toBeUndefined();
    expect(withUrl(`https://github.com/${'a'.repeat(500)}`)).toBeUndefined();
  });

  it('detects nothing when every flag is given, and detects the base branch when only it is missing', () => {
    let calls = 0;
    const counting = () => {
      calls++;
      return { repo: 'x', branch: 'y', baseBranch: 'develop' };
    };
    const all = { repo: 'web', branch: 'main', commit: 'abcdef1', baseBranch: 'main' };
    expect(resolveTarget(all, counting).target).toEqual(all);
    expect(calls).toBe(0);
    const { baseBranch: _, ...withoutBase } = all;
    expect(resolveTarget(withoutBase, counting).target.baseBranch).toBe('develop');
    expect(calls).toBe(1);
  });
});
