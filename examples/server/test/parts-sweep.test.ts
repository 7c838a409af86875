import { createTestApi } from '@covgate/testing';
import { describe, expect, it } from 'vitest';
import { startPartsSweep } from '../src/parts-sweep.js';

describe('the parts sweep of the reference server', () => {
  it('judges a report past its deadline without any read, and logs it', async () => {
    const test = createTestApi();
    const org = await test.createOrganisation();
    const { secret } = await test.insertToken(org);
    const response = await test.request('/v1/executions', {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        repo: 'web',
        branch: 'main',
        coverage: 50,
        commit: 'c'.repeat(40),
        part: 'unit',
        expect_parts: 2,
        files: [
          { path: 'a.ts', covered: 1, coverable: 2, lines: { coverable: [1, 2], covered: [1, 1] } },
        ],
      }),
    });
    const { id } = (await response.json()) as { id: string };
    test.clock.advance(60 * 60 * 1000);
    const lines: string[] = [];
    const sweep = startPartsSweep(
      test.api,
      {
        info: (line: string) => lines.push(line),
        error: (line: string) => lines.push(line),
      } as never,
      10,
    );
    await expect
      .poll(() => lines, { timeout: 5_000 })
      .toEqual(['[parts] judged 1 incomplete commit reports']);
    await sweep.stop();
    const record = await test.store.findExecution(org.id, id);
    expect(record?.outcome).toBe('fail');
    expect(record?.parts?.reason).toBe('incomplete: missing 1 of 2 parts');
  });
});
