/**
 * Token verification costs: the cold argon2id verify (OWASP defaults) that the verified-token
 * cache keeps off the hot path, a cache hit (SHA-256 of the raw token + map lookup), and the
 * rejection of a malformed token before any store lookup.
 *
 * Run: pnpm vitest bench --run bench/token-verification.bench.ts
 * Results: bench/RESULTS.md, section "Token verification".
 */
import { bench, describe } from 'vitest';
import { generateApiToken, parseApiToken } from '../packages/core/src/tokens/token-format.js';
import { createTokenHasher } from '../packages/core/src/tokens/token-hash.js';
import { VerifiedTokenCache } from '../packages/core/src/tokens/verified-token-cache.js';

const hasher = createTokenHasher({ pepper: 'bench-pepper-0123456789abcdef0123456789' });
const { id, token } = generateApiToken();
const storedHash = await hasher.hash(token);

const cache = new VerifiedTokenCache<{ tokenId: string }>();
cache.set(token, id, { tokenId: id });

const garbage = [
  '',
  'Bearer nonsense',
  `${token.toUpperCase()}`,
  `${token}0`,
  'cvg_'.padEnd(44, 'z'),
  'x'.repeat(4_096),
];

describe('token verification', () => {
  bench(
    'cold argon2id verify (m=19456, t=2, p=1)',
    async () => {
      if (!(await hasher.verify(storedHash, token))) throw new Error('verify failed');
    },
    { time: 3_000, warmupIterations: 3 },
  );

  bench('cache hit (SHA-256 + lookup)', () => {
    if (cache.get(token) === undefined) throw new Error('cache miss');
  });

  bench('malformed token rejection (parseApiToken, 6 inputs)', () => {
    for (const raw of garbage) {
      if (parseApiToken(raw) !== null) throw new Error('garbage accepted');
    }
  });
});
