import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as webhookSignature from '@covgate/webhook-signature';
import { describe, expect, it, vi } from 'vitest';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

type Example = (assertModule: typeof assert, library: typeof webhookSignature) => Promise<void>;
const AsyncFunction = (async () => {}).constructor as new (...params: string[]) => Example;

describe('the README of @covgate/webhook-signature', () => {
  it('has an install line', () => {
    expect(readme).toContain('npm install @covgate/webhook-signature');
  });

  it('has a usage example that runs and whose assertions hold', async () => {
    const example = /```js\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example).toBeDefined();
    // Swap the two imports for parameters; the rest runs exactly as a reader would run it.
    const body = (example ?? '')
      .replace("import assert from 'node:assert/strict';", '')
      .replace(/import \{([^}]+)\} from '@covgate\/webhook-signature';/, 'const {$1} = library;');
    expect(body).not.toMatch(/^\s*import\s/m);
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    try {
      await new AsyncFunction('assert', 'library', body)(assert, webhookSignature);
      expect(log).toHaveBeenCalledWith(true, 'timestamp_outside_tolerance', 'signature_mismatch');
    } finally {
      log.mockRestore();
    }
  });
});
