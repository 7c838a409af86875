import type { Store } from '@covgate/core';
import { captureLogs, createTestApi, type LogCapture } from '@covgate/testing';
import { expect } from 'vitest';

/**
 * Validates a token through the API over a store `open`ed on a dead database and expects the
 * failure logged once: the store's line (`storeLine`), then the access line; nothing from the
 * API, which answers `500 {"error":"internal error"}`.
 */
export async function expectFailureLoggedOnce(
  open: (logger: LogCapture['storeLogger']) => Promise<Store>,
  storeLine: string,
): Promise<void> {
  const logs = captureLogs();
  const store = await open(logs.storeLogger);
  const t = createTestApi({ store, logs });
  try {
    const response = await t.request('/v1/auth/validate', {
      method: 'POST',
      headers: { authorization: `Bearer cvg_${'a'.repeat(40)}` },
    });

    expect(response.status).toBe(500);
    expect(await response.text()).toBe('{"error":"internal error"}');
    expect(logs.lines().map(({ level, msg }) => ({ level, msg }))).toEqual([
      { level: 50, msg: storeLine },
      { level: 30, msg: 'request' },
    ]);
  } finally {
    await store.close();
  }
}
