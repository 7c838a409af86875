import { planRunDeliveries } from '../../outbox/run-feedback.js';
import type { ExecutionRecord, NewDelivery, RepositoryLink } from '../../storage/store.js';
import type { ApiServices } from '../services.js';

/**
 * The statuses and the comment a recorded run gives its linked repository, enqueued with it;
 * they link to the run's page in the dashboard when the dashboard's URL is absolute.
 */
export function linkedRunDeliveries(
  services: Pick<ApiServices, 'settings' | 'ids'>,
  record: ExecutionRecord,
  link: RepositoryLink,
): NewDelivery[] {
  const { dashboardUrl } = services.settings;
  const dashboard = /^https?:\/\//.test(dashboardUrl) ? dashboardUrl.replace(/\/+$/, '') : null;
  const runUrl =
    dashboard === null
      ? null
      : `${dashboard}/repos/${encodeURIComponent(record.repo)}/runs/${encodeURIComponent(record.id)}`;
  return planRunDeliveries(record, {
    host: link.host,
    repository: link.repository,
    runUrl,
    newId: () => services.ids.deliveryId(),
  });
}
