import type { Plan } from '../storage/store.js';

/** Slug of an organisation: 1-64 of `a-z`, `0-9` and inner hyphens. */
export const ORGANISATION_SLUG = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

/**
 * Slug prefixes kept for personal organisations (`<code host>-<account id>`, made at a first
 * OAuth login): an organisation created by hand must not take a name that a code-host
 * account will claim later.
 */
export const RESERVED_SLUG_PREFIXES = ['github-', 'gitlab-', 'bitbucket-'] as const;

const PLANS: readonly Plan[] = ['free', 'team', 'enterprise'];
const NAME_MAX = 100;
const CONTROL_CHARACTER = /\p{Cc}/u;

/** What an organisation is created from; `name` defaults to the slug, `plan` to `free`. */
export interface OrganisationInput {
  slug: string;
  name?: string | undefined;
  plan?: Plan | undefined;
}

/** Refused organisation input: the field at fault and a message that is safe to show. */
export class OrganisationInputError extends Error {
  constructor(
    readonly field: 'slug' | 'name' | 'plan',
    message: string,
  ) {
    super(message);
    this.name = 'OrganisationInputError';
  }
}

/**
 * Checks and completes organisation input.
 *
 * @throws OrganisationInputError - `invalid parameter: <field>` for a malformed field, or a
 *   message naming the reserved prefix when the slug starts with one.
 */
export function checkOrganisationInput(input: OrganisationInput): Required<OrganisationInput> {
  const { slug } = input;
  if (typeof slug !== 'string' || !ORGANISATION_SLUG.test(slug)) {
    throw new OrganisationInputError('slug', 'invalid parameter: slug');
  }
  const reserved = RESERVED_SLUG_PREFIXES.find((prefix) => slug.startsWith(prefix));
  if (reserved) {
    throw new OrganisationInputError(
      'slug',
      `reserved slug: ${reserved}... is kept for personal organisations`,
    );
  }
  const name = input.name ?? slug;
  if (
    typeof name !== 'string' ||
    name.trim() === '' ||
    name.length > NAME_MAX ||
    CONTROL_CHARACTER.test(name)
  ) {
    throw new OrganisationInputError('name', 'invalid parameter: name');
  }
  const plan = input.plan ?? 'free';
  if (!PLANS.includes(plan)) throw new OrganisationInputError('plan', 'invalid parameter: plan');
  return { slug, name, plan };
}
