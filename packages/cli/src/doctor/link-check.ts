import type { CovgateClient, ExecutionDetail } from '@covgate/client';
import { type Finding, fail, pass, skip, warn } from './check.js';

/** The feedback decisions of a run, as `GET /v1/executions/{id}` shows them. */
type Feedback = NonNullable<ExecutionDetail['feedback']>;
type Delivery = NonNullable<Feedback['items'][number]['deliveries']>[number];

const LINK_GUIDE = 'docs/guide/pull-request-feedback.md';

/**
 * Whether the repository's runs reach its code host, as far as the API shows it to a CI
 * credential: the link of the repository's latest run (its feedback decisions), and the code
 * host's refusals of that run's deliveries (401, 403, 404: the link's token or repository).
 */
export async function checkLink(
  client: CovgateClient,
  where: { org: string; repo: string },
): Promise<Finding> {
  const { executions } = await client.listExecutions({
    org: where.org,
    repo: where.repo,
    limit: 1,
  });
  const latest = executions[0];
  if (latest === undefined) {
    return skip(
      `not checked: ${where.repo} has no run yet, and a run shows where its feedback went`,
    );
  }
  const detail = await client.getExecution({ id: latest.id });
  const feedback = detail.feedback;
  if (feedback === undefined) {
    return skip(
      `not checked: the latest run ${latest.id} does not say where its feedback went (recorded before covgate kept it, or an older service)`,
    );
  }
  if (feedback.link === null) {
    return warn(
      `${where.repo} is not linked to a code host (latest run ${latest.id}): no commit status or pull request comment is posted, so a required covgate/project check waits forever`,
      `an owner or admin links it: POST /v1/repos/code-host-link?org=${where.org}&repo=${where.repo} {"host":"github","repository":"<owner/name>","token":"..."}, or the repository's settings page (${LINK_GUIDE})`,
    );
  }
  const linked = `${feedback.link.host}:${feedback.link.repository}`;
  const deliveries = feedback.items.flatMap((item) =>
    (item.deliveries ?? []).map((delivery) => ({ item: item.name, delivery })),
  );
  const refused = deliveries.filter(({ delivery }) => refusal(delivery) !== null).pop();
  if (refused !== undefined) {
    const { status, fix } = refusal(refused.delivery) as { status: number; fix: string };
    return fail(
      `${where.repo} is linked to ${linked}, and the code host refused ${refused.item} of the latest run ${latest.id} with ${status}: ${refused.delivery.last_error ?? ''}`,
      fix,
    );
  }
  const failed = deliveries.filter(({ delivery }) => delivery.state === 'failed').pop();
  if (failed !== undefined) {
    return fail(
      `${where.repo} is linked to ${linked}, and ${failed.item} of the latest run ${latest.id} was given up: ${failed.delivery.last_error ?? 'no reason kept'}`,
      "see the run's page (Feedback) and the server's log; covgate/project is posted again with the next run",
    );
  }
  const sent = deliveries.filter(({ delivery }) => delivery.state === 'sent').length;
  const pending = deliveries.length - sent;
  return pass(
    `${where.repo} is linked to ${linked}; of the latest run ${latest.id}, ${sent} sent and ${pending} pending`,
  );
}

/** A code host's refusal that the link's owner must fix, with the fix; null for another answer. */
function refusal(delivery: Delivery): { status: number; fix: string } | null {
  switch (delivery.last_status) {
    case 401:
      return {
        status: 401,
        fix: `the link's token is revoked or expired: an owner or admin links the repository again with a new token (${LINK_GUIDE})`,
      };
    case 403:
      return {
        status: 403,
        fix: `the link's token lacks permission: on GitHub, commit statuses and pull requests with write access; on GitLab, the api scope as Developer (${LINK_GUIDE})`,
      };
    case 404:
      return {
        status: 404,
        fix: `the code host does not find the linked repository with that token: check the link's repository name and that the token can see it (${LINK_GUIDE})`,
      };
    default:
      return null;
  }
}
