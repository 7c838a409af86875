import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_DATA_DIR, type ServerConfig } from './config.js';
import { developmentSessionSecret } from './development-secrets.js';

/** `covgate-admin` will not write a development secret where a server has its own. */
export class DevelopmentSecretRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DevelopmentSecretRefused';
  }
}

/**
 * The one-line refusal of a command that signs with the session secret under
 * `NODE_ENV=production` without `SESSION_SECRET`, checked before the rest of the production
 * checklist so the operator reads the cause, not a list.
 */
export function productionSecretRefusal(env: NodeJS.ProcessEnv): string | undefined {
  if (env.NODE_ENV !== 'production' || env.SESSION_SECRET?.trim()) return undefined;
  const dataDir = env.COVGATE_DATA_DIR?.trim() || DEFAULT_DATA_DIR;
  return `refusing to write a development session secret into ${dataDir} with NODE_ENV=production: run covgate-admin with the server's SESSION_SECRET`;
}

/**
 * The session secret `covgate-admin` signs sessions and links with: `SESSION_SECRET`, or the
 * data folder's development secret (made when absent). Refused, in one line, when the store already has covgate's schema but the data folder
 * holds no development secret: the server that set that store up runs with its own
 * `SESSION_SECRET` (a server without one writes `session-secret` at its first start), and it
 * would refuse a session signed with a new development secret.
 *
 * @param schemaExists - whether the store had covgate's schema before this command ran.
 */
export async function adminSessionSecret(
  config: ServerConfig,
  schemaExists: () => Promise<boolean>,
): Promise<string> {
  if (config.sessionSecret !== undefined) return config.sessionSecret;
  if (!existsSync(join(config.dataDir, 'session-secret')) && (await schemaExists())) {
    throw new DevelopmentSecretRefused(
      `refusing to write a development session secret into ${config.dataDir}: its database belongs to a server with its own SESSION_SECRET; run covgate-admin with that server's environment (SESSION_SECRET, NODE_ENV, DATABASE_URL, COVGATE_DATA_DIR)`,
    );
  }
  return developmentSessionSecret(config.dataDir);
}
