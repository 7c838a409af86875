import { judgeOverdueCommitReports } from '@covgate/core';
import { createTestApi, type FakeGithubRest, type TestApi } from '@covgate/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  BASE_SHA,
  deliverOnce,
  filesOf,
  linkWebToFakeGithub,
  PARTS,
  permutations,
  SHA,
} from './three-parts.js';

// What a pull request on GitHub shows while the parts of its commit arrive (issue 37, "Done
// when"): the statuses and the one comment only ever show the commit's merged state, in any
// order of arrival, when a part is sent again, when one never comes, and when one is carried
// forward from an earlier commit.

const TOKEN = 'github_pat_merged0123456789SECRET';
const GITHUB_REPO = 'octo/widgets';
const PR = 7;

let test: TestApi;
let fake: FakeGithubRest;
let secret: string;
let orgId: string;

beforeEach(async () => {
  test = createTestApi({ dashboardUrl: 'https://covgate.example.com/' });
  const org = await test.createOrganisation();
  orgId = org.id;
  secret = (await test.insertToken(org)).secret;
  fake = await linkWebToFakeGithub(test, orgId, GITHUB_REPO, TOKEN);
});

afterEach(async () => {
  await fake.close();
});

const headers = () => ({ authorization: `Bearer ${secret}`, 'content-type': 'application/json' });

function post(path: string, body: Record<string, unknown>) {
  return test.request(path, { method: 'POST', headers: headers(), body: JSON.stringify(body) });
}

/** Part `name` of the pull request's commit, expecting all three. */
async function sendPart(name: string, body: Record<string, unknown> = {}) {
  const response = await post('/v1/executions', {
    repo: 'web',
    branch: 'feature',
    base_branch: 'main',
    commit: SHA,
    pull_request: PR,
    coverage: 50,
    part: name,
    expect_parts: ['unit', 'integration', 'e2e'],
    files: filesOf(PARTS[name]!),
    ...body,
  });
  expect(response.status).toBe(201);
  return (await response.json()) as { id: string };
}

/** The base branch's whole run at the merge base: 70.00 %. */
async function givenBaseline() {
  const response = await post('/v1/executions', {
    repo: 'web',
    branch: 'main',
    commit: BASE_SHA,
    coverage: 70,
  });
  expect(response.status).toBe(201);
}

/** Delivers what the outbox holds to the fake GitHub. */
const deliver = () => deliverOnce(test, 'merged-feedback-test');

/** The statuses GitHub received since the last call, whole. */
function newStatuses() {
  const all = [...fake.statuses];
  fake.statuses.length = 0;
  return all;
}

const runUrl = (id: string) => `https://covgate.example.com/repos/web/runs/${id}`;

/** Both statuses of the commit, as GitHub keeps them. */
function both(id: string, project: [string, string], patch: [string, string]) {
  const status = (context: string, [state, description]: [string, string]) => ({
    repo: GITHUB_REPO,
    sha: SHA,
    state,
    context,
    description,
    target_url: runUrl(id),
  });
  return [status('covgate/project', project), status('covgate/patch', patch)];
}

const pending = (text: string): [string, string] => ['pending', text];

/** The comment of the commit's report merged from the three parts, against the 70 % baseline. */
const passComment = (id: string) =>
  [
    '<!-- covgate:pr-comment -->',
    `<!-- covgate:run ${id} -->`,
    '### covgate: **pass**',
    '',
    'Passed: +11.25 pts against the baseline. The patch meets its target: 100.00% covered, target 80.00% (covgate’s default).',
    '',
    '| | Coverage | Change | Result |',
    '|---|---|---|---|',
    '| Project | 81.25% | +11.25 against `main` at `aaaaaaa` | pass |',
    '| Patch | 100.00% (3 of 3 changed lines) | target 80% | pass |',
    '',
    'Every changed line that can run is covered.',
    '',
    `[Open the run in covgate](${runUrl(id)}) · commit \`bbbbbbb\``,
    '',
  ].join('\n');

describe('the code host sees the merged state of a commit, never one part', () => {
  it.each(permutations(['unit', 'integration', 'e2e']))(
    'parts arriving as %s, %s, %s: pending statuses naming what is missing, then one verdict',
    async (...order) => {
      await givenBaseline();
      await deliver();
      newStatuses();
      let id = '';
      for (const [at, name] of order.slice(0, 2).entries()) {
        id = (await sendPart(name)).id;
        await deliver();
        const missing = ['e2e', 'integration', 'unit'].filter(
          (each) => !order.slice(0, at + 1).includes(each),
        );
        const text = `${at + 1} of 3 parts: missing ${missing.join(', ')}`;
        expect(newStatuses()).toEqual(both(id, pending(text), pending(text)));
        expect(fake.commentsOf(GITHUB_REPO, PR)).toEqual([]);
      }
      expect((await sendPart(order[2]!)).id).toBe(id);
      await deliver();
      expect(newStatuses()).toEqual(
        both(id, ['success', '81.25% (+11.25) pass'], ['success', 'patch 100.00% >= 80% pass']),
      );
      expect(fake.commentsOf(GITHUB_REPO, PR)).toEqual([
        { id: expect.any(Number), repo: GITHUB_REPO, issue: PR, body: passComment(id), edits: 0 },
      ]);
    },
  );

  it('shows a part sent again as the merged report it gives, in the same comment', async () => {
    await givenBaseline();
    let id = '';
    for (const name of ['unit', 'integration', 'e2e']) id = (await sendPart(name)).id;
    await deliver();
    newStatuses();
    // The re-run of integration covered nothing of a.ts: 9 of 16 lines, a.ts 9-10 missed.
    await sendPart('integration', {
      files: filesOf([
        ['src/a.ts', [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], [], [9, 10]],
        ['src/b.ts', [1, 2, 3, 4], [1], [2]],
      ]),
    });
    await deliver();
    expect(newStatuses()).toEqual(
      both(id, ['failure', '56.25% (-13.75) fail'], ['failure', 'patch 33.33% < 80% fail']),
    );
    expect(fake.commentsOf(GITHUB_REPO, PR)).toEqual([
      {
        id: expect.any(Number),
        repo: GITHUB_REPO,
        issue: PR,
        edits: 1,
        body: [
          '<!-- covgate:pr-comment -->',
          `<!-- covgate:run ${id} -->`,
          '### covgate: **fail**',
          '',
          'Failed by the coverage change: -13.75 pts against the baseline. The patch is below its target too: 33.33% covered, target 80.00% (covgate’s default).',
          '',
          '| | Coverage | Change | Result |',
          '|---|---|---|---|',
          '| Project | 56.25% | -13.75 against `main` at `aaaaaaa` | fail |',
          '| Patch | 33.33% (1 of 3 changed lines) | target 80% | fail |',
          '',
          '**Changed lines not covered** (2 lines in 1 file)',
          '',
          `- [\`src/a.ts\`](${runUrl(id)}/files/src%2Fa.ts): 9-10`,
          '',
          `[Open the run in covgate](${runUrl(id)}) · commit \`bbbbbbb\``,
          '',
        ].join('\n'),
      },
    ]);
  });

  it('fails a commit whose part never came at its deadline, in the statuses and the comment', async () => {
    await givenBaseline();
    await sendPart('unit');
    // Without e2e: a.ts 8 of 10, b.ts 1 of 4 (9 of 14 lines); the patch's b.ts 2 missed.
    const { id } = await sendPart('integration');
    await deliver();
    newStatuses();
    test.clock.advance(59 * 60 * 1000);
    expect(await judgeOverdueCommitReports(test.api)).toBe(0);
    test.clock.advance(60 * 1000);
    expect(await judgeOverdueCommitReports(test.api)).toBe(1);
    await deliver();
    const reason = 'incomplete: missing e2e';
    expect(newStatuses()).toEqual(both(id, ['failure', reason], ['failure', reason]));
    const [comment, ...others] = fake.commentsOf(GITHUB_REPO, PR);
    expect(others).toEqual([]);
    expect(comment?.body).toBe(
      [
        '<!-- covgate:pr-comment -->',
        `<!-- covgate:run ${id} -->`,
        '### covgate: **fail**',
        '',
        'Failed: incomplete: missing e2e; the report was judged without all its parts.',
        '',
        '| | Coverage | Change | Result |',
        '|---|---|---|---|',
        '| Project | 64.28% | -5.72 against `main` at `aaaaaaa` | fail |',
        '| Patch | 66.66% (2 of 3 changed lines) | target 80% | fail |',
        '',
        '**Changed lines not covered** (1 line in 1 file)',
        '',
        `- [\`src/b.ts\`](${runUrl(id)}/files/src%2Fb.ts): 2`,
        '',
        `[Open the run in covgate](${runUrl(id)}) · commit \`bbbbbbb\``,
        '',
      ].join('\n'),
    );
  });

  it('names a part carried forward in the statuses and the comment, until the real one comes', async () => {
    // The merge base's report on main: all three parts, without a patch.
    for (const name of ['unit', 'integration', 'e2e']) {
      await sendPart(name, {
        branch: 'main',
        commit: BASE_SHA,
        pull_request: null,
        files: filesOf(
          PARTS[name]!.map(([path, coverable, covered]) => [path, coverable, covered]),
        ),
      });
    }
    const base = await test.store.findCommitReport({
      orgId,
      repo: 'web',
      commit: BASE_SHA,
      component: null,
    });
    const settings = await test.request('/v1/repos/settings', {
      method: 'PATCH',
      headers: headers(),
      body: JSON.stringify({ repo: 'web', carryforward_parts: ['integration'] }),
    });
    expect(settings.status).toBe(200);
    await deliver();
    fake.statuses.length = 0;
    test.clock.advance(2 * 86_400 * 1000);

    await sendPart('unit', { base_commit: BASE_SHA });
    const { id } = await sendPart('e2e', { base_commit: BASE_SHA });
    await deliver();
    const waiting = '2 of 3 parts: missing integration';
    expect(newStatuses().slice(-2)).toEqual(both(id, pending(waiting), pending(waiting)));
    expect((await post('/v1/executions/finish', { repo: 'web', commit: SHA })).status).toBe(200);
    await deliver();
    // integration's lines but the changed ones: a.ts 1-6, b.ts 1-3, c.ts: 11 of 16 against
    // the merge base's 13; the patch is this commit's parts' alone: 1 of 3.
    expect(newStatuses()).toEqual(
      both(
        id,
        ['failure', '68.75% (-12.50) fail; integration carried from aaaaaaa, 2 days old'],
        ['failure', 'patch 33.33% < 80% fail'],
      ),
    );
    const carriedComment = [
      '<!-- covgate:pr-comment -->',
      `<!-- covgate:run ${id} -->`,
      '### covgate: **fail**',
      '',
      'Failed by the coverage change: -12.50 pts against the baseline. The patch is below its target too: 33.33% covered, target 80.00% (covgate’s default).',
      '',
      '**Carried forward** (not run on this commit; counted in the project figure, never on a changed line):',
      '',
      `- \`integration\` from \`aaaaaaa\` (run \`${base!.id}\`), 2 days old`,
      '',
      '| | Coverage | Change | Result |',
      '|---|---|---|---|',
      '| Project | 68.75% | -12.50 against `main` at `aaaaaaa` | fail |',
      '| Patch | 33.33% (1 of 3 changed lines) | target 80% | fail |',
      '',
      '**Changed lines not covered** (2 lines in 1 file)',
      '',
      `- [\`src/a.ts\`](${runUrl(id)}/files/src%2Fa.ts): 9-10`,
      '',
      '**Files that lost most**',
      '',
      '| File | Coverage | Change |',
      '|---|---|---|',
      '| `src/a.ts` | 60.00% | -20.00 |',
      '',
      `[Open the run in covgate](${runUrl(id)}) · commit \`bbbbbbb\``,
      '',
    ].join('\n');
    expect(fake.commentsOf(GITHUB_REPO, PR).map((comment) => comment.body)).toEqual([
      carriedComment,
    ]);

    // The real part arrives: merged again, nothing carried any more.
    await sendPart('integration', { base_commit: BASE_SHA });
    await deliver();
    expect(newStatuses()).toEqual(
      both(id, ['success', '81.25% (0.00) pass'], ['success', 'patch 100.00% >= 80% pass']),
    );
    const [comment, ...others] = fake.commentsOf(GITHUB_REPO, PR);
    expect(others).toEqual([]);
    expect(comment?.edits).toBe(1);
    expect(comment?.body).not.toContain('Carried forward');
    expect(comment?.body).toContain(
      '| Project | 81.25% | 0.00 against `main` at `aaaaaaa` | pass |',
    );
  });
});
