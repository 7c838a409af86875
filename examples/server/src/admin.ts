#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { createAuditLogger, OrganisationInputError } from '@covgate/core';
import pino from 'pino';
import { bootstrapOrganisation } from './bootstrap.js';
import { ConfigError, loadConfig } from './config.js';
import { developmentSessionSecret } from './development-secrets.js';
import { openStore } from './open-store.js';

const USAGE = `usage: covgate-admin bootstrap <org-slug> [--plan free|team|enterprise] [--user <user-id>]

Creates the organisation (or reuses it) and a first session for it, and prints the session
token once. Uses the same configuration (DATABASE_URL, SESSION_SECRET...) as the server.`;

async function main(): Promise<void> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      plan: { type: 'string', default: 'free' },
      user: { type: 'string', default: 'usr_admin' },
      help: { type: 'boolean', default: false },
    },
  });
  const [command, slug] = positionals;
  if (values.help || command !== 'bootstrap' || !slug) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(values.help ? 0 : 2);
  }
  const plan = values.plan;
  if (plan !== 'free' && plan !== 'team' && plan !== 'enterprise') {
    process.stderr.write(`covgate-admin: --plan must be free, team or enterprise\n`);
    process.exit(2);
  }
  const config = loadConfig(process.env);
  const logger = pino({ base: null }, pino.destination(2));
  const store = await openStore(config, logger);
  try {
    const sessionSecret = config.sessionSecret ?? (await developmentSessionSecret(config.dataDir));
    const result = await bootstrapOrganisation(store, {
      slug,
      plan,
      userId: values.user,
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
  const message = error instanceof ConfigError ? error.message : (error as Error).message;
  process.stderr.write(`covgate-admin: ${message}\n`);
  process.exit(1);
});
