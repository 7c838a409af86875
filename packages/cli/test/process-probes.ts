import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';

// What the signal tests ask of a test command they started: it writes its pid (or a marker) to
// a file when ready, and must be gone once covgate has waited for it.

/** The text of `path` once it exists and is not empty; fails after about `timeoutMs`. */
export async function waitForFile(path: string, timeoutMs: number): Promise<string> {
  for (let waited = 0; waited < timeoutMs; waited += 20) {
    if (existsSync(path)) {
      const text = await readFile(path, 'utf8');
      if (text) return text;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`${path} never appeared`);
}

/** Whether a process `pid` still exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
