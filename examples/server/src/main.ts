#!/usr/bin/env node
import { createAuditLogger, type Store } from '@covgate/core';
import { SIGN_IN_LINK_LIFETIME_SECONDS } from '@covgate/core/internal';
import { parseMySqlUrl } from '@covgate/mysql/connection-url';
import type { Logger } from 'pino';
import {
  adminCommand,
  packageVersion,
  parseServerArguments,
  SERVER_USAGE,
} from './command-line.js';
import { ConfigError, loadConfig, type ServerConfig } from './config.js';
import { developmentSessionSecret } from './development-secrets.js';
import { openStore, SchemaBehindError } from './open-store.js';
import { dashboardUrlOf, publicUrlOf } from './public-urls.js';
import { recordPublicUrl } from './recorded-public-url.js';
import { startReferenceServer } from './reference-server.js';
import { createServerLogger, loggerAuditSink, readableLogs } from './server-logger.js';
import { DEVELOPMENT_ORGANISATION, developmentLoginLink } from './sign-in-links.js';

const SHUTDOWN_GRACE_MS = 10_000;

/**
 * The start-up banner after the listening line: the dashboard's URL and, in development, a
 * one-time sign-in link into the development organisation, so one click opens the dashboard.
 * A failure to make the link is a warning: the server runs without it.
 */
async function printBanner(config: ServerConfig, store: Store, logger: Logger): Promise<void> {
  logger.info(`dashboard: ${dashboardUrlOf(config)}`);
  if (!config.development) return;
  try {
    const link = await developmentLoginLink(store, {
      sessionSecret: config.sessionSecret ?? (await developmentSessionSecret(config.dataDir)),
      publicUrl: publicUrlOf(config),
      audit: createAuditLogger(loggerAuditSink(logger)),
    });
    const minutes = SIGN_IN_LINK_LIFETIME_SECONDS / 60;
    logger.info(
      `sign in to the development organisation "${DEVELOPMENT_ORGANISATION}" (one use, ${minutes} minutes): ${link.url}`,
    );
    logger.info(`more links: ${adminCommand()} login-link ${DEVELOPMENT_ORGANISATION}`);
  } catch (error) {
    logger.warn(`development sign-in link unavailable: ${(error as Error).message}`);
  }
}

/** Handles `--help`, `--version` and bad arguments (and exits); otherwise the start options. */
function commandLine(): { noMigrate: boolean } {
  const command = parseServerArguments(process.argv.slice(2));
  if (command.kind === 'help') {
    process.stdout.write(`${SERVER_USAGE}\n`);
    process.exit(0);
  }
  if (command.kind === 'version') {
    process.stdout.write(`covgate-server ${packageVersion()}\n`);
    process.exit(0);
  }
  if (command.kind === 'usage-error') {
    process.stderr.write(`covgate-server: ${command.message}\n${SERVER_USAGE}\n`);
    process.exit(2);
  }
  return command;
}

async function main(): Promise<void> {
  const { noMigrate } = commandLine();
  // One stream on stdout: readable in development, JSON everywhere else.
  const logger = createServerLogger({ readable: readableLogs(process.env.NODE_ENV) });
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      logger.fatal(`covgate: ${error.message}`);
      process.exit(1);
    }
    throw error;
  }
  if (noMigrate) config.migrate = false;
  if (config.databaseTlsOff && config.databaseUrl) {
    const { host, port } = parseMySqlUrl(config.databaseUrl);
    logger.warn(
      `DATABASE_TLS=off: the connection to the database at ${host}:${port} is not encrypted; keep the database on this host or a private network`,
    );
  }
  const store = await openStore(config, logger);
  const running = await startReferenceServer(config, store, logger);
  logger.info(
    { url: running.url, store: config.databaseUrl ? 'mysql' : 'embedded' },
    `covgate listening on ${running.url}`,
  );

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info(`received ${signal}, shutting down`);
    const force = setTimeout(() => {
      logger.error('shutdown grace period over, exiting');
      process.exit(1);
    }, SHUTDOWN_GRACE_MS);
    force.unref();
    running.close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error(`shutdown failed: ${(error as Error).message}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  // Before the banner, whose command builds its links on it.
  await recordPublicUrl(config).catch((error: unknown) =>
    logger.warn(
      `PUBLIC_URL not recorded for covgate-admin in ${config.dataDir}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    ),
  );
  // After the handlers: a SIGTERM during the banner's database work still drains.
  await printBanner(config, store, logger);
}

main().catch((error: unknown) => {
  const logger = createServerLogger({ readable: readableLogs(process.env.NODE_ENV) });
  if (error instanceof SchemaBehindError)
    logger.fatal(`covgate: refusing to start: ${error.message}`);
  else logger.fatal(`covgate: failed to start: ${(error as Error).message}`);
  process.exit(1);
});
