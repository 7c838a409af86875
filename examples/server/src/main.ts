#!/usr/bin/env node
import pino from 'pino';
import { ConfigError, loadConfig } from './config.js';
import { openStore } from './open-store.js';
import { startReferenceServer } from './reference-server.js';

const SHUTDOWN_GRACE_MS = 10_000;

async function main(): Promise<void> {
  const logger = pino({ base: null });
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`covgate: ${error.message}\n`);
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
  process.stderr.write(`covgate: failed to start: ${(error as Error).message}\n`);
  process.exit(1);
});
