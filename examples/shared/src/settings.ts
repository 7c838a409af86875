/** What the application reads from its environment. */
export interface Settings {
  host: string;
  port: number;
  production: boolean;
  sessionSecret: string;
  serviceToken: string;
  providerAWebhookSecret: string | undefined;
  providerBWebhookSecret: string | undefined;
  /** Names of the settings that fell back to a development value. */
  developmentFallbacks: string[];
}

/** A setting that is missing or invalid; the message names it, never its value. */
export class SettingsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SettingsError';
  }
}

/**
 * DEVELOPMENT ONLY: the service token used when `SERVICE_TOKEN` is unset outside production,
 * so `POST /coverage/v1/sessions/create` can be tried by hand. It is public (it is in this
 * file), which is why production refuses to start without a real one.
 */
export const DEVELOPMENT_SERVICE_TOKEN = 'development-only-service-token';

const MIN_SECRET_LENGTH = 32;

/**
 * Reads the settings from the environment. With `NODE_ENV=production`, `SESSION_SECRET` and
 * `SERVICE_TOKEN` must be set to at least 32 characters. Otherwise they fall back to
 * development values: a random session secret for this process (sessions in the memory
 * store die with it anyway) and {@link DEVELOPMENT_SERVICE_TOKEN}.
 *
 * @param randomSecret - makes the development session secret (injected for tests).
 * @throws SettingsError naming the offending setting.
 */
export function readSettings(
  env: Readonly<Record<string, string | undefined>>,
  randomSecret: () => string,
): Settings {
  const production = env.NODE_ENV === 'production';
  const developmentFallbacks: string[] = [];
  const secret = (name: 'SESSION_SECRET' | 'SERVICE_TOKEN', fallback: () => string): string => {
    const value = env[name];
    if (production && (value === undefined || value.length < MIN_SECRET_LENGTH)) {
      throw new SettingsError(
        `${name} must be set to at least ${MIN_SECRET_LENGTH} characters when NODE_ENV=production`,
      );
    }
    if (value) return value;
    developmentFallbacks.push(name);
    return fallback();
  };
  return {
    host: env.HOST || '127.0.0.1',
    port: portOf(env.PORT),
    production,
    sessionSecret: secret('SESSION_SECRET', randomSecret),
    serviceToken: secret('SERVICE_TOKEN', () => DEVELOPMENT_SERVICE_TOKEN),
    providerAWebhookSecret: env.PROVIDER_A_WEBHOOK_SECRET || undefined,
    providerBWebhookSecret: env.PROVIDER_B_WEBHOOK_SECRET || undefined,
    developmentFallbacks,
  };
}

function portOf(value: string | undefined): number {
  if (value === undefined || value === '') return 3000;
  const port = /^\d{1,5}$/.test(value) ? Number(value) : Number.NaN;
  if (!(port >= 0 && port <= 65_535)) throw new SettingsError('PORT must be a number 0-65535');
  return port;
}
