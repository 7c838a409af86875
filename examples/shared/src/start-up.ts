import { randomBytes } from 'node:crypto';
import { type CreateApiOptions, createMemoryStore, type Organisation } from '@covgate/core';
import { providerA, providerB } from '@covgate/webhook-signature';
import { seedDemoOrganisation } from './demo-organisation.js';
import { readSettings, type Settings, SettingsError } from './settings.js';

/** What an example's `main.ts` wires its own framework with. */
export interface TodoAppStartUp {
  settings: Settings;
  /** The organisation `demo`, already in the store of {@link TodoAppStartUp.covgateOptions}. */
  demo: Organisation;
  /** covgate's options: a memory store, the secrets and webhook providers of the settings. */
  covgateOptions: CreateApiOptions;
}

/**
 * The start-up both example applications share, run from their `main.ts`: reads the
 * settings from `process.env` (on a {@link SettingsError}, says why on stderr and exits 1),
 * says on stderr which settings fell back to development values, and seeds the demo
 * organisation in a fresh memory store.
 */
export async function prepareTodoApp(): Promise<TodoAppStartUp> {
  let settings: Settings;
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
  return {
    settings,
    demo,
    covgateOptions: {
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
    },
  };
}

/** Says on stderr where the application and covgate (under `covgatePath`) listen. */
export function reportListening(origin: string, covgatePath: string, demo: Organisation): void {
  process.stderr.write(
    `todo app listening on ${origin}, covgate at ${origin}${covgatePath}; demo organisation ${demo.slug} (${demo.id})\n`,
  );
}

/** Says on stderr why the server could not listen, and exits 1. */
export function exitCannotListen(error: Error): never {
  process.stderr.write(`todo app: cannot listen: ${error.message}\n`);
  process.exit(1);
}

/** Runs `stop` on the first SIGINT or SIGTERM; `stop` exits the process when it is done. */
export function onShutdownSignal(stop: () => void): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, stop);
  }
}
