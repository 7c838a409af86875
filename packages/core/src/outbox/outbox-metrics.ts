import type { OutboxStats } from '../storage/store.js';

/** The media type of Prometheus's text exposition format. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** The outbox's gauges in Prometheus's text exposition format. */
export function outboxMetricsText(stats: OutboxStats): string {
  const gauge = (name: string, help: string, value: number) =>
    `# HELP ${name} ${help}\n# TYPE ${name} gauge\n${name} ${value}\n`;
  return [
    gauge(
      'covgate_outbox_pending',
      'Deliveries to code hosts (commit statuses, pull and merge request comments) not sent yet.',
      stats.pending,
    ),
    gauge(
      'covgate_outbox_oldest_pending_age_seconds',
      'Seconds since the oldest delivery not sent yet was enqueued (0 when none).',
      stats.oldestPendingAgeSeconds,
    ),
    gauge('covgate_outbox_failed', 'Deliveries given up (kept with their reason).', stats.failed),
  ].join('');
}
