#!/usr/bin/env node
import { createAuditLogger, SIGN_IN_LINK_LIFETIME_SECONDS, type Store } from '@covgate/core';
import type { Logger } from 'pino';
import { ConfigError, loadConfig, type ServerConfig } from './config.js';
import { developmentSessionSecret } from './development-secrets.js';
import { openStore } from './open-store.js';
import { dashboardUrlOf, publicUrlOf } from './public-urls.js';
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
    logger.info(`more links: covgate-admin login-link ${DEVELOPMENT_ORGANISATION}`);
  } catch (error) {
    logger.warn(`development sign-in link unavailable: ${(error as Error).message}`);
  }
}

async function main(): Promise<void> {
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
  const store = await openStore(config, logger);
  const running = await startReferenceServer(config, store, logger);
  logger.info(
    { url: running.url, store: config.databaseUrl ? 'mysql' : 'embedded' },
    `covgate listening on ${running.url}`,
  );
  await printBanner(config, store, logger);

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
}

main().catch((error: unknown) => {
  createServerLogger({ readable: readableLogs(process.env.NODE_ENV) }).fatal(
    `covgate: failed to start: ${(error as Error).message}`,
  );
  process.exit(1);
});
