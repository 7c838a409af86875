import { describe, expect, it } from 'vitest';
import { ingest, sendJson, timestampIn } from './contract-helpers.js';
import { type HttpContractOptions, useContractServer } from './harness.js';
import { useTeamWithToken } from './team-setup.js';

const HEAD = 'c'.repeat(40);

/**
 * A run's feedback decisions (issue 41, "why nothing happened"): the ingest answer says, for
 * `covgate/project`, `covgate/patch` and the comment, whether each was queued for the linked
 * code host or why not, and `GET /v1/executions/{id}` adds what the outbox did with each.
 */
export function feedbackDecisionsContract(options: HttpContractOptions): void {
  describe('feedback decisions', () => {
    const ctx = useContractServer(options);
    const team = useTeamWithToken(ctx);
    const link = async (repo: string) => {
      const now = ctx.clock.now();
      await ctx.store.putRepositoryLink({
        orgId: team.org.id,
        repo,
        host: 'github',
        repository: `octo/${repo}`,
        apiUrl: 'https://api.github.com',
        credential: 'sealed',
        credentialHint: '…cdef',
        createdBy: 'usr_contract',
        createdAt: now,
        updatedAt: now,
      });
    };

    it('queues both statuses and the comment of a linked pull request, and the run lists their deliveries', async () => {
      await link('api');
      const response = await ingest(ctx, team.token, {
        repo: 'api',
        branch: 'feature',
        coverage: 80,
        commit: HEAD,
        pull_request: 12,
        component: 'web',
        patch: { covered: 9, coverable: 10 },
      });
      const run = (await response.json()) as { id: string; feedback: unknown };
      const queued = 'queued for GitHub octo/api';
      expect([response.status, run.feedback]).toEqual([
        201,
        {
          link: { host: 'github', repository: 'octo/api' },
          commit: 'full',
          pull_request: 12,
          items: [
            {
              kind: 'status_project',
              name: 'covgate/project (web)',
              queued: true,
              reason: null,
              message: queued,
            },
            {
              kind: 'status_patch',
              name: 'covgate/patch (web)',
              queued: true,
              reason: null,
              message: queued,
            },
            { kind: 'comment', name: 'comment', queued: true, reason: null, message: queued },
          ],
        },
      ]);

      const detail = await sendJson(ctx, 'GET', `/v1/executions/${run.id}`, team.token);
      const { feedback } = (await detail.json()) as {
        feedback: { items: { name: string; deliveries: unknown[] }[] };
      };
      const pending = {
        id: expect.stringMatching(/^dlv_[0-9a-z]{26}$/),
        state: 'pending',
        attempts: 0,
        created_at: timestampIn(ctx, 0),
        sent_at: null,
        result: null,
        next_attempt_at: timestampIn(ctx, 0),
        last_error: null,
        last_status: null,
      };
      expect(feedback.items.map((item) => [item.name, item.deliveries])).toEqual([
        ['covgate/project (web)', [pending]],
        ['covgate/patch (web)', [pending]],
        ['comment', [pending]],
      ]);
      const list = await sendJson(
        ctx,
        'GET',
        `/v1/executions?org=${team.org.slug}&repo=api`,
        team.token,
      );
      expect(((await list.json()) as { executions: unknown[] }).executions).toEqual([run]);
    });

    it('says why nothing was queued: no link, an abbreviated commit, no patch, no pull request', async () => {
      const response = await ingest(ctx, team.token, {
        repo: 'unlinked',
        branch: 'main',
        coverage: 80,
        commit: 'abc1234',
      });
      const run = (await response.json()) as { id: string; feedback: unknown };
      const notLinked = 'not sent: the repository is not linked to a code host';
      const expected = {
        link: null,
        commit: 'short',
        pull_request: null,
        items: [
          {
            kind: 'status_project',
            name: 'covgate/project',
            queued: false,
            reason: 'not_linked',
            message: notLinked,
          },
          {
            kind: 'status_patch',
            name: 'covgate/patch',
            queued: false,
            reason: 'not_linked',
            message: notLinked,
          },
          {
            kind: 'comment',
            name: 'comment',
            queued: false,
            reason: 'not_linked',
            message: notLinked,
          },
        ],
      };
      expect(run.feedback).toEqual(expected);
      const detail = await sendJson(ctx, 'GET', `/v1/executions/${run.id}`, team.token);
      expect(((await detail.json()) as { feedback: unknown }).feedback).toEqual({
        ...expected,
        items: expected.items.map((item) => ({ ...item, deliveries: [] })),
      });

      await link('short');
      const short = await ingest(ctx, team.token, {
        repo: 'short',
        branch: 'main',
        coverage: 80,
        commit: 'abc1234',
      });
      expect(((await short.json()) as { feedback: unknown }).feedback).toEqual({
        link: { host: 'github', repository: 'octo/short' },
        commit: 'short',
        pull_request: null,
        items: [
          {
            kind: 'status_project',
            name: 'covgate/project',
            queued: false,
            reason: 'short_commit',
            message: 'not sent: the run names an abbreviated commit id; a status needs the full id',
          },
          {
            kind: 'status_patch',
            name: 'covgate/patch',
            queued: false,
            reason: 'short_commit',
            message: 'not sent: the run names an abbreviated commit id; a status needs the full id',
          },
          {
            kind: 'comment',
            name: 'comment',
            queued: false,
            reason: 'no_pull_request',
            message: 'not sent: the run names no pull request',
          },
        ],
      });
    });

    it('names a push without a patch, and a policy that turns the comment off', async () => {
      await link('push');
      const push = await ingest(ctx, team.token, {
        repo: 'push',
        branch: 'main',
        coverage: 80,
        commit: HEAD,
      });
      const reasons = (body: unknown) =>
        (body as { feedback: { items: { reason: string | null }[] } }).feedback.items.map(
          (item) => item.reason,
        );
      expect(reasons(await push.json())).toEqual([null, 'no_patch', 'no_pull_request']);
      const quiet = await ingest(ctx, team.token, {
        repo: 'push',
        branch: 'feature',
        coverage: 80,
        commit: HEAD,
        pull_request: 3,
        patch: { covered: 1, coverable: 1 },
        comment: false,
      });
      const body = (await quiet.json()) as { feedback: { items: object[] } };
      expect(reasons(body)).toEqual([null, null, 'comment_disabled']);
      expect(body.feedback.items[2]).toMatchObject({
        message: 'not sent: the policy says comment: false',
      });
    });

    it('keeps the comment of a skipped commit and says so', async () => {
      await link('docs');
      const response = await sendJson(ctx, 'POST', '/v1/executions/skip', team.token, {
        repo: 'docs',
        branch: 'readme',
        commit: HEAD,
        pull_request: 4,
        reason: 'docs only',
      });
      const body = (await response.json()) as {
        feedback: { items: { queued: boolean; reason: string | null; message: string }[] };
      };
      expect(body.feedback.items.map((item) => [item.queued, item.reason])).toEqual([
        [true, null],
        [true, null],
        [false, 'skipped_run'],
      ]);
      expect(body.feedback.items[2]?.message).toBe(
        "not sent: a skipped commit keeps the pull request's last comment",
      );
    });
  });
}
