#!/usr/bin/env node
import { randomBytes } from 'node:crypto';
import { createMemoryStore, providerA, providerB } from '@covgate/core';
import { COVGATE_PREFIX, createApp } from './app.js';
import { seedDemoOrganisation } from './demo-organisation.js';
import { readSettings, SettingsError } from './settings.js';

let settings: ReturnType<typeof readSettings>;
try {
  settings = readSettings(process.env, () => randomBytes(32).toString('hex'));
} catch (error) {
  if (!(error instanceof SettingsError)) throw error;
  process.stderr.write(`todo app: ${error.message}\n`);
  process.exit(1);
}
if (settings.developmentFallbacks.length > 0) {
  process.stderr.write(
    `todo app: DEVELOPMENT ONLY, not set: ${settings.developmentFallbacks.join(', ')}; using development values\n`,
  );
}

// The memory store keeps everything in this process; `@covgate/sqlite` or `@covgate/mysql`
// keep it across restarts.
const store = createMemoryStore();
const demo = await seedDemoOrganisation(store, new Date());
const server = await createApp({
  host: settings.host,
  port: settings.port,
  store,
  sessionSecret: settings.sessionSecret,
  serviceToken: settings.serviceToken,
  secureCookies: settings.production,
  webhooks: {
    providers: [
      { ...providerA, secret: settings.providerAWebhookSecret },
      { ...providerB, secret: settings.providerBWebhookSecret },
    ],
  },
});

try {
  await server.start();
} catch (error) {
  process.stderr.write(`todo app: cannot listen: ${(error as Error).message}\n`);
  process.exit(1);
}
process.stderr.write(
  `todo app listening on ${server.info.uri}, covgate at ${server.info.uri}${COVGATE_PREFIX}; demo organisation ${demo.slug} (${demo.id})\n`,
);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    server.stop({ timeout: 10_000 }).then(() => process.exit(0));
  });
}
