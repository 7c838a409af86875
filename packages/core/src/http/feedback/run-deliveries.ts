import { planRunFeedback } from '../../outbox/run-feedback.js';
import type { ExecutionRecord, NewDelivery, RepositoryLink } from '../../storage/store.js';
import type { ApiServices } from '../services.js';

/**
 * A recorded run with its feedback decisions (`feedback`), and the statuses and the comment
 * it gives its linked repository, enqueued with it; none without a link. They link to the
 * run's page in the dashboard when the dashboard's URL is absolute.
 */
export function runWithFeedback(
  services: Pick<ApiServices, 'settings' | 'ids'>,
  record: ExecutionRecord,
  link: RepositoryLink | null,
): { record: ExecutionRecord; deliveries: NewDelivery[] } {
  const { dashboardUrl } = services.settings;
  const dashboard = /^https?:\/\//.test(dashboardUrl) ? dashboardUrl.replace(/\/+$/, '') : null;
  const runUrl =
    dashboard === null
      ? null
      : `${dashboard}/repos/${encodeURIComponent(record.repo)}/runs/${encodeURIComponent(record.id)}`;
  const { plan, deliveries } = planRunFeedback(
    record,
    link === null
      ? null
      : {
          host: link.host,
          repository: link.repository,
          runUrl,
          newId: () => services.ids.deliveryId(),
        },
  );
  return { record: { ...record, feedback: plan }, deliveries };
}
