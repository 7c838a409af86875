import type { Organisation, Role } from '@covgate/core';
import { beforeEach, expect } from 'vitest';
import { randomSuffix } from '../fixtures.js';
import { sendJson } from './contract-helpers.js';
import type { ContractContext } from './harness.js';

/**
 * A user id of this run only: a store shared between runs (MySQL) keeps older memberships, and
 * a user's list of organisations would show them.
 */
export const runUserId = (name: string): string => `usr_${name}_${randomSuffix()}`;

/** A session of `userId` in `org`, joining it with `role` when not a member yet. */
export async function sessionAs(
  ctx: ContractContext,
  org: Organisation,
  userId: string,
  role?: Role,
): Promise<string> {
  const response = await sendJson(ctx, 'POST', '/v1/sessions/create', ctx.serviceToken, {
    user_id: userId,
    org_id: org.id,
    ...(role ? { role } : {}),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { token: string }).token;
}

/** A `team` organisation with an owner, an admin and a member, their ids and a session of each. */
export async function team(ctx: ContractContext) {
  const org = await ctx.createOrganisation('team');
  const ids = { owner: runUserId('owner'), admin: runUserId('admin'), member: runUserId('member') };
  return {
    org,
    ids,
    owner: await sessionAs(ctx, org, ids.owner),
    admin: await sessionAs(ctx, org, ids.admin, 'admin'),
    member: await sessionAs(ctx, org, ids.member, 'member'),
  };
}

/** A `team` organisation and the secret of an API token of it: where an ingest test starts. */
export async function teamWithToken(ctx: ContractContext) {
  const org = await ctx.createOrganisation('team');
  return { org, token: (await ctx.createToken(org)).secret };
}

/**
 * {@link teamWithToken}, made afresh before each test of the enclosing `describe` so tests
 * never see each other's runs; read its `org` and `token` inside a test.
 */
export function useTeamWithToken(ctx: ContractContext): { org: Organisation; token: string } {
  const current = {} as { org: Organisation; token: string };
  beforeEach(async () => {
    Object.assign(current, await teamWithToken(ctx));
  });
  return current;
}
