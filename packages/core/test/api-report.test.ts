import { describe, expect, it } from 'vitest';
import { checkApiReports } from '../scripts/api-report.mjs';

describe('the public API of @covgate/core', () => {
  it('matches the committed reports in packages/core/etc (after `pnpm run api:report`)', () => {
    const { changed, messages } = checkApiReports(false);
    expect(messages).toEqual([]);
    expect(changed).toEqual([]);
  }, 180_000);
});
