import { z } from 'zod';
import { COMPONENT } from '../../executions/component.js';
import { parseBody } from '../validation.js';

/** The longest reason a skipped commit may give (its statuses keep it with the base's figure). */
export const MAX_SKIP_REASON_LENGTH = 200;

const NAME = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[^\p{Cc}]+$/u);

const skipBody = z.object({
  org: z.string().min(1).optional(),
  repo: NAME,
  branch: NAME,
  commit: z
    .string()
    .regex(/^[0-9a-fA-F]{7,64}$/)
    .transform((commit) => commit.toLowerCase()),
  base_branch: NAME.default('main'),
  component: COMPONENT.nullable().optional(),
  pull_request: z.number().int().min(1).max(2_147_483_647).nullable().optional(),
  reason: z
    .string()
    .trim()
    .min(1)
    .max(MAX_SKIP_REASON_LENGTH)
    .regex(/^[^\p{Cc}]+$/u),
});

/** A parsed `POST /v1/executions/skip` body. */
export interface SkipInput {
  /** The organisation the body names, checked against the credential; undefined when none. */
  org: string | undefined;
  repo: string;
  branch: string;
  /** Lowercase hex, 7-64 characters. */
  commit: string;
  baseBranch: string;
  component: string | null;
  pullRequest: number | null;
  /** Trimmed, 1-200 characters, no control character. */
  reason: string;
}

/**
 * Validates `POST /v1/executions/skip`'s body: `400 invalid parameter: <field>` for the first
 * offending field, `400 malformed request` for a body that is not an object.
 */
export function parseSkipBody(body: unknown): SkipInput {
  const data = parseBody(skipBody, body);
  return {
    org: data.org,
    repo: data.repo,
    branch: data.branch,
    commit: data.commit,
    baseBranch: data.base_branch,
    component: data.component ?? null,
    pullRequest: data.pull_request ?? null,
    reason: data.reason,
  };
}
