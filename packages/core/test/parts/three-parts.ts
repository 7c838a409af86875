import { createAuditLogger, createMemoryAuditSink } from '@covgate/core';
import {
  type FakeGithubRest,
  newPrefixedId,
  startFakeGithubRest,
  TEST_START,
  type TestApi,
} from '@covgate/testing';
import { encodeLineData, encodeRanges } from '../../src/executions/line-data.js';
import { createOutboxDispatcher } from '../../src/outbox/outbox-worker.js';

// The commit the parts tests send in three parts, and the fake GitHub its feedback goes to.

/** The commit whose parts are sent. */
export const SHA = 'b'.repeat(40);
/** The base branch's commit, where its baseline run is. */
export const BASE_SHA = 'a'.repeat(40);

/** One file of a part: its coverable and covered lines, and the patch's changed lines. */
export type FileSpec = [path: string, coverable: number[], covered: number[], changed?: number[]];

/** The `files` entries of a part with their line data. */
export function filesOf(specs: FileSpec[]) {
  return specs.map(([path, coverable, covered, changed]) => ({
    path,
    covered: covered.length,
    coverable: coverable.length,
    lines: encodeLineData({ coverable, covered }),
    ...(changed ? { patch_lines: encodeRanges(changed) } : {}),
  }));
}

/**
 * Three parts of one commit: `src/a.ts` lines 1-10 split between unit and integration, e2e
 * alone covering `src/b.ts`; the patch changes a.ts 9-10 (integration covers them) and b.ts 2.
 */
export const PARTS: Record<string, FileSpec[]> = {
  unit: [
    ['src/a.ts', [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], [1, 2, 3, 4], [9, 10]],
    ['src/b.ts', [1, 2, 3, 4], [], [2]],
  ],
  integration: [
    ['src/a.ts', [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], [3, 4, 5, 6, 9, 10], [9, 10]],
    ['src/b.ts', [1, 2, 3, 4], [1], [2]],
  ],
  e2e: [
    ['src/b.ts', [1, 2, 3, 4], [2, 3], [2]],
    ['src/c.ts', [1, 2], [1, 2]],
  ],
};

/** Every order of a list. */
export function permutations<T>(items: T[]): T[][] {
  if (items.length <= 1) return [items];
  return items.flatMap((item, at) =>
    permutations([...items.slice(0, at), ...items.slice(at + 1)]).map((rest) => [item, ...rest]),
  );
}

/**
 * Starts a fake GitHub that takes `token` for `repository` and links the organisation's
 * repository `web` to it, the credential stored as `sealed:<token>`.
 */
export async function linkWebToFakeGithub(
  test: TestApi,
  orgId: string,
  repository: string,
  token: string,
): Promise<FakeGithubRest> {
  const fake = await startFakeGithubRest();
  fake.allowToken(token, [repository]);
  await test.store.putRepositoryLink({
    orgId,
    repo: 'web',
    host: 'github',
    repository,
    apiUrl: fake.apiUrl,
    credential: `sealed:${token}`,
    credentialHint: '…CRET',
    createdBy: newPrefixedId('usr_'),
    createdAt: TEST_START,
    updatedAt: TEST_START,
  });
  return fake;
}

/** One pass of the outbox: what it holds goes to the fake GitHub, the credential unsealed. */
export function deliverOnce(test: TestApi, owner: string) {
  return createOutboxDispatcher({
    store: test.store,
    logger: { info: () => {}, warn: () => {}, error: () => {} },
    audit: createAuditLogger(createMemoryAuditSink()),
    decryptCredential: (link) => link.credential.replace('sealed:', ''),
    clock: test.clock,
    random: () => 0.5,
    owner,
    requestTimeoutMs: 2_000,
    allowPrivateCodeHosts: true,
  }).runOnce();
}
