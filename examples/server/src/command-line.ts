import { existsSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

/** The package's version, from its `package.json` (beside `dist/` and `src/`). */
export function packageVersion(): string {
  const manifest = readFileSync(new URL('../package.json', import.meta.url), 'utf8');
  return (JSON.parse(manifest) as { version: string }).version;
}

/**
 * How to run `covgate-admin` beside this server: `pnpm admin` in a clone of the repository
 * (its `scripts/admin.mjs`, run from the repository's folder), where no `covgate-admin` is
 * installed; `covgate-admin` where the package is installed (its bin).
 */
export function adminCommand(): string {
  return existsSync(new URL('../../../scripts/admin.mjs', import.meta.url))
    ? 'pnpm admin'
    : 'covgate-admin';
}

export const SERVER_USAGE = `usage: covgate-server [--no-migrate]
       covgate-server --help | --version

Starts the covgate server with the configuration in its environment (PORT, HOST,
DATABASE_URL, COVGATE_DATA_DIR, SESSION_SECRET, NODE_ENV...): see docs/configuration.md.
At start it applies the database migrations this release ships and logs one line with the
schema's version before and after.

Options:
  --no-migrate  do not migrate (as COVGATE_MIGRATE=off): refuse to start when the schema is
                behind; migrate in a separate step with covgate-admin migrate up
  --help        print this help and exit
  --version     print the version and exit`;

/** What `covgate-server`'s arguments ask for. */
export type ServerCommand =
  | { kind: 'start'; noMigrate: boolean }
  | { kind: 'help' }
  | { kind: 'version' }
  | { kind: 'usage-error'; message: string };

/** Reads `covgate-server`'s arguments; anything unknown is a usage error. */
export function parseServerArguments(args: string[]): ServerCommand {
  try {
    const { values } = parseArgs({
      args,
      options: {
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
        'no-migrate': { type: 'boolean' },
      },
    });
    if (values.help) return { kind: 'help' };
    if (values.version) return { kind: 'version' };
    return { kind: 'start', noMigrate: values['no-migrate'] === true };
  } catch (error) {
    return { kind: 'usage-error', message: (error as Error).message };
  }
}
