import type { TokenRecord } from '../storage/store.js';
import { type Clock, wholeSeconds } from '../time/timestamp.js';
import { generateApiToken } from './token-format.js';
import type { TokenHasher } from './token-hash.js';

/** A new active token record and its secret (the only copy); not yet stored. */
export async function newTokenRecord(
  services: {
    randomBytes: (size: number) => Uint8Array;
    hasher: TokenHasher;
    clock: Clock;
  },
  fields: Pick<TokenRecord, 'orgId' | 'name' | 'scopes' | 'agentType'>,
): Promise<{ record: TokenRecord; secret: string }> {
  const { id, token } = generateApiToken(services.randomBytes);
  const record: TokenRecord = {
    ...fields,
    id,
    hash: await services.hasher.hash(token),
    status: 'active',
    createdAt: wholeSeconds(services.clock.now()),
    lastUsedAt: null,
    gracePeriodEndsAt: null,
  };
  return { record, secret: token };
}
