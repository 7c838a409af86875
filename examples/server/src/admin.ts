#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { createAuditLogger, OrganisationInputError, ROLES, type Role } from '@covgate/core';
import pino from 'pino';
import { bootstrapOrganisation } from './bootstrap.js';
import { ConfigError, loadConfig, type ServerConfig } from './config.js';
import { developmentSessionSecret } from './development-secrets.js';
import { openStore } from './open-store.js';
import { publicUrlOf } from './public-urls.js';
import { DEFAULT_ADMIN_USER, LoginLinkError, loginLink } from './sign-in-links.js';

const USAGE = `usage: covgate-admin bootstrap <org-slug> [--plan free|team|enterprise] [--user <user-id>]
       covgate-admin login-link <org-slug> [--user <user-id>] [--role owner|admin|member]

Examples:
  covgate-admin bootstrap acme          # the organisation and a session token for the API
  covgate-admin login-link acme         # a link that opens the dashboard, signed in to acme

bootstrap   Creates the organisation (or reuses it) and a first session for it, and prints
            the session token once.
login-link  Prints a one-time sign-in link (stdout, nothing else): opened in a browser within
            15 minutes, once, it signs <user-id> (default ${DEFAULT_ADMIN_USER}) in to the
            organisation and opens the dashboard; a user who is not a member joins with
            --role (default owner). Built on PUBLIC_URL.

Both use the server's configuration (DATABASE_URL, SESSION_SECRET, PUBLIC_URL...).`;

/** `covgate-admin bootstrap`: prints the organisation, the session and its token. */
async function bootstrap(config: ServerConfig, slug: string, plan: string, userId: string) {
  if (plan !== 'free' && plan !== 'team' && plan !== 'enterprise') {
    process.stderr.write(`covgate-admin: --plan must be free, team or enterprise\n`);
    process.exit(2);
  }
  const logger = pino({ base: null }, pino.destination(2));
  const store = await openStore(config, logger);
  try {
    const sessionSecret = config.sessionSecret ?? (await developmentSessionSecret(config.dataDir));
    const result = await bootstrapOrganisation(store, {
      slug,
      plan,
      userId,
      sessionSecret,
      sessionLifetimeSeconds: config.sessionLifetimeSeconds,
      audit: createAuditLogger({ write: (line) => process.stderr.write(`${line}\n`) }),
    });
    process.stdout.write(
      [
        `organisation: ${result.organisation.slug} (${result.organisation.id}, plan ${result.organisation.plan})${result.created ? '' : ' [existing]'}`,
        `session:      ${result.sessionId}, expires ${result.expiresAt}`,
        '',
        'Session token (shown once; it manages API tokens):',
        `  export COVGATE_SESSION=${result.sessionToken}`,
        '',
        'Next: create an API token',
        `  curl -s -X POST http://localhost:${config.port}/v1/tokens -H "Authorization: Bearer $COVGATE_SESSION" -H 'Content-Type: application/json' -d '{"name":"ci"}'`,
        '',
      ].join('\n'),
    );
  } finally {
    await store.close();
  }
}

/** `covgate-admin login-link`: the link on stdout, what it does on stderr. */
async function printLoginLink(config: ServerConfig, slug: string, userId: string, role: Role) {
  const logger = pino({ base: null }, pino.destination(2));
  const store = await openStore(config, logger);
  try {
    const sessionSecret = config.sessionSecret ?? (await developmentSessionSecret(config.dataDir));
    const link = await loginLink(store, {
      slug,
      userId,
      role,
      sessionSecret,
      publicUrl: publicUrlOf(config),
    });
    process.stderr.write(
      `covgate-admin: sign-in link for ${userId} in ${link.organisation.slug}, usable once until ${link.expiresAt}:\n`,
    );
    process.stdout.write(`${link.url}\n`);
  } finally {
    await store.close();
  }
}

async function main(): Promise<void> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      plan: { type: 'string' },
      role: { type: 'string' },
      user: { type: 'string', default: DEFAULT_ADMIN_USER },
      help: { type: 'boolean', default: false },
    },
  });
  const [command, slug, ...extra] = positionals;
  const known = command === 'bootstrap' || command === 'login-link';
  if (values.help || !known || !slug || extra.length > 0) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(values.help ? 0 : 2);
  }
  if (command === 'login-link' && values.plan !== undefined) {
    process.stderr.write('covgate-admin: --plan is an option of bootstrap only\n');
    process.exit(2);
  }
  if (command === 'bootstrap' && values.role !== undefined) {
    process.stderr.write('covgate-admin: --role is an option of login-link only\n');
    process.exit(2);
  }
  const role = values.role ?? 'owner';
  if (!isRole(role)) {
    process.stderr.write('covgate-admin: --role must be owner, admin or member\n');
    process.exit(2);
  }
  const config = loadConfig(process.env);
  if (command === 'bootstrap') await bootstrap(config, slug, values.plan ?? 'free', values.user);
  else await printLoginLink(config, slug, values.user, role);
}

function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

/** What the operator reads for a refused slug: the rule rather than the API's field name. */
function inputMessage(error: OrganisationInputError): string {
  return error.message.startsWith('invalid parameter')
    ? `organisation ${error.field} refused: the slug must be 1-64 of a-z, 0-9 and inner hyphens`
    : error.message;
}

main().catch((error: unknown) => {
  if (error instanceof OrganisationInputError) {
    process.stderr.write(`covgate-admin: ${inputMessage(error)}\n`);
    process.exit(2);
  }
  if (error instanceof LoginLinkError) {
    process.stderr.write(`covgate-admin: ${error.message}\n`);
    process.exit(2);
  }
  const message = error instanceof ConfigError ? error.message : (error as Error).message;
  process.stderr.write(`covgate-admin: ${message}\n`);
  process.exit(1);
});
