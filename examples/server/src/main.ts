#!/usr/bin/env node
import { ConfigError, loadConfig } from './config.js';
import { openStore } from './open-store.js';
import { startReferenceServer } from './reference-server.js';
import { createServerLogger, readableLogs } from './server-logger.js';

const SHUTDOWN_GRACE_MS = 10_000;

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
