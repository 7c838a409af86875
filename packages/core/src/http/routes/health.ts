import { outboxMetricsText, PROMETHEUS_CONTENT_TYPE } from '../../outbox/outbox-metrics.js';
import { ERRORS } from '../api-error.js';
import { jsonReply, textReply } from '../reply.js';
import type { ReadinessCheck, RouteHandler } from '../services.js';

/** How long readiness waits for each dependency (the store's own deadline is the same 2 s). */
export const READINESS_DEADLINE_MS = 2_000;

/** `GET /health`: liveness, no authentication. */
export const getHealth: RouteHandler = async () =>
  textReply(200, '{"status":"ok"}', { 'content-type': 'application/json; charset=utf-8' });

/**
 * `GET /health/ready`: readiness, no authentication. `200 {"status":"ready"}` when the
 * store (its `ping`; stores without one are always ready) and every configured dependency
 * answer within {@link READINESS_DEADLINE_MS}, else `503 {"error":"not ready"}`, so a load
 * balancer stops sending traffic to a process that would only answer 500.
 */
export const getReadiness: RouteHandler = async ({ services }) => {
  const checks: ReadinessCheck[] = [...services.readinessChecks];
  const { store } = services;
  if (store.ping) checks.push(() => store.ping?.() ?? Promise.resolve());
  const answers = await Promise.all(checks.map((check) => answersInTime(check)));
  return answers.every(Boolean)
    ? jsonReply(200, { status: 'ready' })
    : jsonReply(503, { error: ERRORS.notReady });
};

async function answersInTime(check: ReadinessCheck): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), READINESS_DEADLINE_MS);
  });
  const answered = check().then(
    () => true,
    () => false,
  );
  try {
    return await Promise.race([answered, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `GET /health/metrics`: the outbox's gauges (pending, oldest pending age, failed) in
 * Prometheus's text format, no authentication, like the other health paths: counts of the
 * whole deployment's outbox, nothing of any organisation. `500` when the store fails.
 */
export const getMetrics: RouteHandler = async ({ services }) => {
  const { store, clock } = services;
  const stats = await store.outboxStats(clock.now());
  return textReply(200, outboxMetricsText(stats), { 'content-type': PROMETHEUS_CONTENT_TYPE });
};
