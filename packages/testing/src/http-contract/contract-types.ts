/** The types of the HTTP contract suite, free of any test runner. */

import type { CreateApiOptions, ManualClock, Organisation, Plan, Role, Store } from '@covgate/core';

/** A server under test, started by an adapter around the API options the suite chose. */
export interface StartedServer {
  /** URL under which covgate's paths live: `${baseUrl}/health` is the health check. */
  baseUrl: string;
  close(): Promise<void>;
}

/** Starts covgate behind one adapter (Fetch on node:http, Express, Hapi...). */
export type StartServer = (options: CreateApiOptions) => Promise<StartedServer>;

/** Options of the HTTP contract suite. */
export interface HttpContractOptions {
  start: StartServer;
  /** Builds the store for each server; the memory store by default. */
  createStore?: () => Promise<Store>;
}

/** Everything a contract test needs about the running server. */
export interface ContractContext {
  baseUrl: string;
  store: Store;
  clock: ManualClock;
  auditLines: string[];
  logLines: () => Record<string, unknown>[];
  serviceToken: string;
  allowedOrigin: string;
  /** Sends a request to a covgate path (`/v1/...`). */
  request(path: string, init?: RequestInit): Promise<Response>;
  /** Creates an organisation directly in the store. */
  createOrganisation(plan?: Plan): Promise<Organisation>;
  /**
   * Creates a session through `POST /v1/sessions/create` and returns its bearer token; a user
   * who is not a member joins with `role` (default: owner for the first member, else member).
   */
  createSession(
    org: Organisation,
    userId?: string,
    role?: Role,
  ): Promise<{ token: string; sessionId: string }>;
  /** Creates an API token through `POST /v1/tokens` with a session of `org` (`usr_contract`, an owner when it joins). */
  createToken(
    org: Organisation,
    body?: Record<string, unknown>,
  ): Promise<{ id: string; secret: string; sessionToken: string }>;
  /** Inserts a token straight into the store (for scopes the API cannot grant). */
  insertToken(org: Organisation, scopes: string[]): Promise<{ id: string; secret: string }>;
}
