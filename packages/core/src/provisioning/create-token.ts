import { randomBytes as cryptoRandomBytes } from 'node:crypto';
import type { z } from 'zod';
import type { AuditLogger } from '../audit/audit-sink.js';
import type { TokenScope } from '../identity/token-scopes.js';
import type { Clock } from '../time/timestamp.js';
import { newTokenRecord } from '../tokens/new-token-record.js';
import { agentTypeSchema, nameSchema, scopesSchema } from '../tokens/token-fields.js';
import { createTokenHasher, type TokenHasher } from '../tokens/token-hash.js';
import {
  findOrganisation,
  ProvisioningInputError,
  type ProvisioningTarget,
  provisioningContext,
} from './provisioning-target.js';

/** What {@link createToken} makes. */
export interface CreateTokenInput {
  /** The organisation's slug or id. */
  org: string;
  /** 1-100 characters, no control characters (trimmed). */
  name: string;
  /** Default `['execute']`, the scope that posts runs. */
  scopes?: readonly TokenScope[];
  /** The kind of agent it is for (`ci`, `github-actions`...): up to 64 of `A-Z a-z 0-9 . _ -`. */
  agentType?: string;
}

/** Options of {@link createToken}, all for a store target only. */
export interface CreateTokenOptions {
  /**
   * Store target: the server's `TOKEN_PEPPER`, when it has one. A token hashed without the
   * server's pepper (or with another) is refused with `401`.
   */
  tokenPepper?: string;
  /** Store target: a hasher to use instead (its pepper must be the server's). */
  tokenHasher?: TokenHasher;
  /** Store target: receives `token.create`; an API's go to its audit sink. */
  audit?: AuditLogger;
  /** Store target: source of `createdAt`; the system clock by default. */
  clock?: Clock;
}

/** A token made by {@link createToken}. */
export interface ProvisionedToken {
  /** The id the API lists the token under (not secret). */
  id: string;
  /** The token (`cvg_` + 40 hex characters): the only copy, it is stored as an argon2id hash. */
  secret: string;
  orgId: string;
  name: string;
  scopes: TokenScope[];
  agentType: string;
  createdAt: Date;
}

function parsed<T>(
  schema: z.ZodType<T>,
  value: unknown,
  field: 'name' | 'scopes' | 'agentType',
): T {
  const result = schema.safeParse(value);
  if (!result.success) throw new ProvisioningInputError(field, `invalid parameter: ${field}`);
  return result.data;
}

/**
 * Creates an API token of an organisation from code, as `POST /v1/tokens` does for a session
 * of that organisation (audit line `token.create`), without its rate limit or ceiling on
 * active tokens: those limit callers of the API, not the operator. The secret works at once
 * as `Authorization: Bearer` for `POST /v1/executions`.
 *
 * ```ts
 * const api = createApi({ store, sessionSecret });
 * const { secret } = await createToken(api, { org: 'acme', name: 'ci' });
 * ```
 *
 * Given an API made by `createApi`, its store, token hasher (and pepper) and audit sink are
 * used. Given a `Store`, pass the server's `tokenPepper` when it has one.
 *
 * @throws ProvisioningInputError - an unknown organisation, or a malformed name, scope list
 *   or agent type.
 * @throws TypeError - store-only options given with an API, or an object with `handle` that
 *   `createApi` did not make.
 */
export async function createToken(
  target: ProvisioningTarget,
  input: CreateTokenInput,
  options: CreateTokenOptions = {},
): Promise<ProvisionedToken> {
  const { tokenPepper, tokenHasher } = options;
  const context = provisioningContext(target, options, { tokenPepper, tokenHasher }, 'createToken');
  const name = parsed(nameSchema, input.name, 'name');
  const scopes = parsed(scopesSchema, input.scopes ?? ['execute'], 'scopes');
  const agentType = parsed(agentTypeSchema, input.agentType ?? '', 'agentType');
  const org = await findOrganisation(context.store, input.org);
  const hasher =
    context.api?.hasher ??
    tokenHasher ??
    createTokenHasher(tokenPepper === undefined ? {} : { pepper: tokenPepper });
  const { record, secret } = await newTokenRecord(
    {
      hasher,
      clock: context.clock,
      randomBytes: context.api?.randomBytes ?? ((size) => cryptoRandomBytes(size)),
    },
    { orgId: org.id, name, scopes, agentType },
  );
  await context.store.insertToken(record);
  context.audit.record({
    type: 'token.create',
    orgId: record.orgId,
    tokenId: record.id,
    scopes: record.scopes,
    agentType: record.agentType,
  });
  return {
    id: record.id,
    secret,
    orgId: record.orgId,
    name: record.name,
    scopes: record.scopes as TokenScope[],
    agentType: record.agentType,
    createdAt: record.createdAt,
  };
}
