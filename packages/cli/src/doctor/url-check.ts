import { CovgateApiError, type CovgateClient, CovgateNetworkError } from '@covgate/client';
import { dashboardServiceUrl, displayUrl, networkReason, notCovgate } from '../service.js';
import { type Finding, fail, pass } from './check.js';

const SET_URL = "set COVGATE_URL (or --url) to the covgate service's base URL";

/**
 * Whether the service URL answers as covgate's API: `GET /health` is covgate's liveness
 * answer (not a web page, not the dashboard), and `GET /health/ready` says its store (and
 * Redis) answer.
 */
export async function checkUrl(client: CovgateClient, baseUrl: string): Promise<Finding> {
  const url = displayUrl(baseUrl);
  try {
    await client.getHealth();
  } catch (error) {
    return unreachable(error, baseUrl);
  }
  try {
    await client.getReadiness();
  } catch (error) {
    if (error instanceof CovgateApiError && error.fromApi && error.status === 503) {
      return fail(
        `${url} answers as covgate but is not ready: its database (or Redis) does not answer, so runs would be refused`,
        "see the server's log and GET /health/ready; it answers 200 once the database answers",
      );
    }
    return unreachable(error, baseUrl);
  }
  return pass(`${url} answers as the covgate API and is ready`);
}

function unreachable(error: unknown, baseUrl: string): Finding {
  const url = displayUrl(baseUrl);
  if (error instanceof CovgateNetworkError) {
    if (error.timeoutMs !== null) {
      return fail(
        `${url} did not answer within ${error.timeoutMs / 1000} s`,
        `check that this job reaches ${url} (proxy, firewall, VPN), or raise COVGATE_TIMEOUT`,
      );
    }
    return fail(
      `${url} cannot be reached: ${networkReason(error.cause)}`,
      `${SET_URL}, and check that this job reaches it`,
    );
  }
  if (error instanceof CovgateApiError) {
    const answer = `${error.status} ${error.contentType ?? 'without a content type'}`;
    const service = dashboardServiceUrl(baseUrl);
    if (notCovgate(error) && service !== null) {
      return fail(
        `${url} is the dashboard's address, not the API's (GET /health answered ${answer})`,
        `set COVGATE_URL (or --url) to ${service}`,
      );
    }
    if (notCovgate(error)) {
      return fail(
        `${url} is not a covgate service (GET /health answered ${answer})`,
        `${SET_URL}, where GET /health answers {"status":"ok"}`,
      );
    }
    return fail(
      `${url} answered GET /health with ${error.status} (${error.error})`,
      "see the server's log (or the proxy's in front of it); covgate answers 200 there when it runs",
    );
  }
  throw error;
}
