import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createClient } from '@libsql/client';

/**
 * Moves a stored run back in time in a built server's SQLite database (`covgate.db` in its
 * data folder): the API stamps a run with the server's clock, and a test of "change over 30
 * days" needs a run that old. The server reads the row afresh (it keeps no copy of a record
 * whose time changed).
 */
export async function backdateRun(dataDir: string, id: string, days: number): Promise<void> {
  const db = createClient({ url: pathToFileURL(join(dataDir, 'covgate.db')).href });
  try {
    const result = await db.execute({
      sql: 'UPDATE executions SET created_at = created_at - ? WHERE id = ?',
      args: [days * 86_400_000, id],
    });
    if (result.rowsAffected !== 1) throw new Error(`no run ${id} to backdate`);
  } finally {
    db.close();
  }
}
