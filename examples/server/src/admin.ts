#!/usr/bin/env node
import { parseArgs } from 'node:util';
import {
  createAuditLogger,
  OrganisationInputError,
  pruneRunDetail,
  ROLES,
  type Role,
  retentionEnabled,
} from '@covgate/core';
import { migrationLine } from '@covgate/core/storage-kit';
import pino from 'pino';
import {
  adminSessionSecret,
  DevelopmentSecretRefused,
  productionSecretRefusal,
} from './admin-secrets.js';
import { bootstrapOrganisation } from './bootstrap.js';
import { packageVersion } from './command-line.js';
import { ConfigError, loadConfig, type ServerConfig } from './config.js';
import { developmentSessionSecret } from './development-secrets.js';
import { migrationsFor, openStore } from './open-store.js';
import { type AdminPublicUrl, adminPublicUrl } from './recorded-public-url.js';
import { pruneReportLine, retentionPolicyOf } from './retention-schedule.js';
import {
  DEFAULT_ADMIN_USER,
  type LoginLink,
  LoginLinkError,
  loginLink,
  newPersonLoginLink,
} from './sign-in-links.js';

const USAGE = `usage: covgate-admin bootstrap <org-slug> [--plan free|team|enterprise] [--user <user-id>]
       covgate-admin login-link <org-slug> [--name <name>] [--role owner|admin|member]
       covgate-admin login-link <org-slug> --user <user-id> [--role owner|admin|member]
       covgate-admin migrate status|up
       covgate-admin prune [--dry-run] [--json]
       covgate-admin --help | --version

Examples:
  covgate-admin bootstrap acme                  # the organisation and a session token for the API
  covgate-admin login-link acme --name "Bea"    # a link that signs a new person in to acme
  covgate-admin login-link acme --user ${DEFAULT_ADMIN_USER}  # a link that signs you (the operator) in
  RETENTION_DAYS=90 covgate-admin prune --dry-run  # what 90 days of retention would delete

bootstrap   Creates the organisation (or reuses it) and a first session for it, and prints
            the session token once.
login-link  Prints a one-time sign-in link (stdout, nothing else), usable once within 15
            minutes. Without --user it is for a new person: a fresh user id that joins as
            --role (default member), shown among the members by --name; an invite the person
            opened first is accepted as they sign in. With --user it signs that user in (the
            bootstrap user is ${DEFAULT_ADMIN_USER}); a user who is not a member joins with --role
            (default owner). Built on PUBLIC_URL, else on the address the server recorded in
            its data folder at start (stderr says which).
migrate     status: prints the schema's version, this release's and the pending migrations;
            exits 0 when up to date, 1 when migrations are pending. up: applies them (for
            servers started with --no-migrate or COVGATE_MIGRATE=off).
prune       Deletes the per-file lists, line data and part uploads of the runs the retention
            setting (RETENTION_DAYS, RETENTION_RUNS_PER_BRANCH) does not keep, and prints how
            many runs, rows and bytes went (--json: one JSON object). Runs stay listed with
            their figures. --dry-run prints the same and deletes nothing. Exits 2 when no
            retention setting is given.

All use the server's configuration (DATABASE_URL, COVGATE_DATA_DIR, SESSION_SECRET,
PUBLIC_URL...). Without SESSION_SECRET, bootstrap and login-link use the data folder's
development secret; they refuse to make one with NODE_ENV=production or when the database
belongs to a server with its own SESSION_SECRET.`;

/** Whether the configured store already has covgate's schema (before this command). */
async function schemaExists(config: ServerConfig): Promise<boolean> {
  return (await (await migrationsFor(config)).status()).current !== null;
}

/** `covgate-admin prune [--dry-run] [--json]`: what went (or would go) on stdout. */
async function pruneCommand(config: ServerConfig, dryRun: boolean, json: boolean): Promise<void> {
  const policy = retentionPolicyOf(config);
  if (!retentionEnabled(policy)) {
    process.stderr.write(
      'covgate-admin: retention is off: set RETENTION_DAYS or RETENTION_RUNS_PER_BRANCH\n',
    );
    process.exit(2);
  }
  const logger = pino({ base: null, level: 'warn' }, pino.destination(2));
  const store = await openStore(config, logger);
  try {
    const report = await pruneRunDetail(store, { policy, now: new Date(), dryRun });
    process.stdout.write(`${json ? JSON.stringify(report) : pruneReportLine(report)}\n`);
  } finally {
    await store.close();
  }
}

/** `covgate-admin migrate status|up`. */
async function migrateCommand(config: ServerConfig, action: string): Promise<void> {
  const migrations = await migrationsFor(config);
  const status = await migrations.status();
  if (action === 'up') {
    // A new database set up without SESSION_SECRET belongs to a development server, which
    // writes its secret at first start: written here too, so bootstrap accepts the folder.
    if (config.sessionSecret === undefined && status.current === null) {
      await developmentSessionSecret(config.dataDir);
    }
    process.stdout.write(`${migrationLine(await migrations.migrate())}\n`);
    return;
  }
  process.stdout.write(
    [
      `schema:  ${status.current ?? 'none'}${status.ahead ? ' (newer than this release)' : ''}`,
      `release: ${status.latest}`,
      `pending: ${status.pending.length === 0 ? 'none' : status.pending.join(', ')}`,
      '',
    ].join('\n'),
  );
  if (status.pending.length > 0) process.exitCode = 1;
}

// bootstrap and login-link migrate like the server but keep stderr to their own lines and the
// store's failures: `migrate up` is where the schema's version is reported.

/** `covgate-admin bootstrap`: prints the organisation, the session and its token. */
async function bootstrap(config: ServerConfig, slug: string, plan: string, userId: string) {
  if (plan !== 'free' && plan !== 'team' && plan !== 'enterprise') {
    process.stderr.write(`covgate-admin: --plan must be free, team or enterprise\n`);
    process.exit(2);
  }
  const sessionSecret = await adminSessionSecret(config, () => schemaExists(config));
  const logger = pino({ base: null, level: 'warn' }, pino.destination(2));
  const store = await openStore(config, logger);
  try {
    const address = await adminPublicUrl(config);
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
        `Next: create an API token (the server's address: ${address.source})`,
        `  curl -s -X POST ${address.url}/v1/tokens -H "Authorization: Bearer $COVGATE_SESSION" -H 'Content-Type: application/json' -d '{"name":"ci"}'`,
        '',
      ].join('\n'),
    );
  } finally {
    await store.close();
  }
}

/** Who a link is for: a user the operator names, or a new person. */
type LinkFor = { user: string; role: Role } | { name: string | undefined; role: Role };

/** `covgate-admin login-link`: the link on stdout, what it does and its address on stderr. */
async function printLoginLink(config: ServerConfig, slug: string, linkFor: LinkFor) {
  const sessionSecret = await adminSessionSecret(config, () => schemaExists(config));
  const logger = pino({ base: null, level: 'warn' }, pino.destination(2));
  const store = await openStore(config, logger);
  try {
    const address = await adminPublicUrl(config);
    const common = { slug, sessionSecret, publicUrl: address.url };
    let link: LoginLink;
    let who: string;
    if ('user' in linkFor) {
      link = await loginLink(store, { ...common, userId: linkFor.user, role: linkFor.role });
      who = `${linkFor.user} in ${link.organisation.slug}`;
    } else {
      const made = await newPersonLoginLink(store, { ...common, ...linkFor });
      link = made;
      const named = made.name === null ? 'a new person' : `a new person, "${made.name}",`;
      who = `${named} (${made.userId}) joining ${link.organisation.slug} as ${linkFor.role} (or the role of the invite they opened)`;
    }
    process.stderr.write(
      `covgate-admin: sign-in link for ${who}, usable once until ${link.expiresAt}:\n`,
    );
    if (!('user' in linkFor)) {
      process.stderr.write(
        `covgate-admin: it signs whoever opens it in as that new person; for yourself: --user ${DEFAULT_ADMIN_USER}\n`,
      );
    }
    process.stderr.write(`covgate-admin: ${addressLine(address)}\n`);
    process.stdout.write(`${link.url}\n`);
  } finally {
    await store.close();
  }
}

/** Where a link's address came from, in one line. */
function addressLine(address: AdminPublicUrl): string {
  return `built on ${address.url}: ${address.source}`;
}

async function main(): Promise<void> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      plan: { type: 'string' },
      role: { type: 'string' },
      user: { type: 'string' },
      name: { type: 'string' },
      'dry-run': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
      version: { type: 'boolean', default: false },
    },
  });
  if (values.version) {
    process.stdout.write(`covgate-admin ${packageVersion()}\n`);
    process.exit(0);
  }
  const [command, slug, ...extra] = positionals;
  if (command === 'prune' && !values.help) {
    if (slug !== undefined) {
      process.stdout.write(`${USAGE}\n`);
      process.exit(2);
    }
    await pruneCommand(loadConfig(process.env), values['dry-run'], values.json);
    return;
  }
  if (values['dry-run'] || values.json) {
    process.stderr.write('covgate-admin: --dry-run and --json are options of prune only\n');
    process.exit(2);
  }
  const known = command === 'bootstrap' || command === 'login-link' || command === 'migrate';
  const migrateAction = command === 'migrate' && (slug === 'status' || slug === 'up');
  if (
    values.help ||
    !known ||
    !slug ||
    extra.length > 0 ||
    (command === 'migrate' && !migrateAction)
  ) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(values.help ? 0 : 2);
  }
  if (command === 'migrate') {
    await migrateCommand(loadConfig(process.env), slug);
    return;
  }
  const refusal = productionSecretRefusal(process.env);
  if (refusal !== undefined) {
    process.stderr.write(`covgate-admin: ${refusal}\n`);
    process.exit(1);
  }
  if (command === 'login-link' && values.plan !== undefined) {
    process.stderr.write('covgate-admin: --plan is an option of bootstrap only\n');
    process.exit(2);
  }
  if (command === 'bootstrap' && values.role !== undefined) {
    process.stderr.write('covgate-admin: --role is an option of login-link only\n');
    process.exit(2);
  }
  if (values.name !== undefined && (command === 'bootstrap' || values.user !== undefined)) {
    process.stderr.write('covgate-admin: --name is for a new person: login-link without --user\n');
    process.exit(2);
  }
  // A link for a named user is the operator's (owner by default); one for a new person, a member's.
  const role = values.role ?? (values.user === undefined ? 'member' : 'owner');
  if (!isRole(role)) {
    process.stderr.write('covgate-admin: --role must be owner, admin or member\n');
    process.exit(2);
  }
  const config = loadConfig(process.env);
  if (command === 'bootstrap') {
    await bootstrap(config, slug, values.plan ?? 'free', values.user ?? DEFAULT_ADMIN_USER);
  } else if (values.user !== undefined) {
    await printLoginLink(config, slug, { user: values.user, role });
  } else {
    await printLoginLink(config, slug, { name: values.name, role });
  }
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
  if (error instanceof DevelopmentSecretRefused) {
    process.stderr.write(`covgate-admin: ${error.message}\n`);
    process.exit(1);
  }
  if (error instanceof LoginLinkError) {
    process.stderr.write(`covgate-admin: ${error.message}\n`);
    process.exit(2);
  }
  const message = error instanceof ConfigError ? error.message : (error as Error).message;
  process.stderr.write(`covgate-admin: ${message}\n`);
  process.exit(1);
});
