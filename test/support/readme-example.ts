import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';

type Example = (assertModule: typeof assert, library: unknown) => Promise<void>;
const AsyncFunction = (async () => {}).constructor as new (...params: string[]) => Example;

/**
 * Tests the README at `readmeUrl` of package `name`: it has an install line, and its first
 * `js` example runs against `library` (the package's exports), its assertions hold and it
 * logs `logged`.
 */
export function describeReadme(
  name: string,
  readmeUrl: URL,
  library: object,
  logged: readonly unknown[],
): void {
  const readme = readFileSync(readmeUrl, 'utf8');
  const packageImport = new RegExp(`import \\{([^}]+)\\} from '${name}';`);

  describe(`the README of ${name}`, () => {
    it('has an install line', () => {
      expect(readme).toContain(`npm install ${name}`);
    });

    it('has a usage example that runs and whose assertions hold', async () => {
      const example = /```js\n([\s\S]*?)```/.exec(readme)?.[1];
      expect(example).toBeDefined();
      // Swap the two imports for parameters; the rest runs exactly as a reader would run it.
      const body = (example ?? '')
        .replace("import assert from 'node:assert/strict';", '')
        .replace(packageImport, 'const {$1} = library;');
      expect(body).not.toMatch(/^\s*import\s/m);
      const log = vi.spyOn(console, 'log').mockImplementation(() => {});
      try {
        await new AsyncFunction('assert', 'library', body)(assert, library);
        expect(log).toHaveBeenCalledWith(...logged);
      } finally {
        log.mockRestore();
      }
    });
  });
}
