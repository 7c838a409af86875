import type { TokenRecord } from '@covgate/core';
import { tokenTimestamps, wholeSeconds } from '@covgate/core/storage-kit';
import { and, eq } from 'drizzle-orm';
import { retryDeadlocks } from '../deadlock-retry.js';
import { tokens } from '../schema.js';
import { affected, type QueryContext } from './context.js';

/** Token rotation: one MySQL transaction. */
export function tokenQueries({ db }: QueryContext) {
  return {
    rotateToken: (oldId: string, replacement: TokenRecord, gracePeriodEndsAt: Date) =>
      retryDeadlocks(() =>
        db.transaction(async (tx) => {
          const result = await tx
            .update(tokens)
            .set({ status: 'rotating', gracePeriodEndsAt: wholeSeconds(gracePeriodEndsAt) })
            .where(and(eq(tokens.id, oldId), eq(tokens.status, 'active')));
          if (affected(result) === 0) return false;
          await tx.insert(tokens).values(tokenTimestamps(replacement));
          return true;
        }),
      ),
  };
}
