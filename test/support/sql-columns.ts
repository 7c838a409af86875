import type { Store } from '@covgate/core';
import { buildExecution } from '@covgate/testing';
import { expect } from 'vitest';

/** What a SQL store's column types do to values finer than they hold, one case each. */
export const sqlColumnCases: { name: string; check(store: Store): Promise<void> }[] = [
  {
    name: 'keeps coverage to two decimals, as its DECIMAL(5,2) column does',
    check: async (store) => {
      const record = buildExecution({ coverage: 84.1234 });
      await store.insertExecution(record);

      const [listed] = await store.listExecutions({ ...record, limit: 1 });
      expect(listed?.coverage).toBe(84.12);
    },
  },
  {
    name: 'truncates milliseconds to whole seconds on write',
    check: async (store) => {
      const record = buildExecution({ createdAt: new Date('2025-01-15T10:00:00.999Z') });
      await store.insertExecution(record);

      const [listed] = await store.listExecutions({ ...record, limit: 1 });
      expect(listed?.createdAt).toEqual(new Date('2025-01-15T10:00:00Z'));
    },
  },
];
