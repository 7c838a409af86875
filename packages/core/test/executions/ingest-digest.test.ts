import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { fileListDigest } from '../../src/executions/file-list.js';
import { type CanonicalIngest, ingestDigest } from '../../src/executions/idempotency.js';

const plain: CanonicalIngest = {
  orgId: 'org_1',
  repo: 'web',
  branch: 'main',
  coverage: 84.1,
  baseBranch: 'main',
  commit: null,
  warnThreshold: 0.5,
  failThreshold: 1,
  component: null,
  pullRequest: null,
  baseCommit: null,
  patch: null,
  patchTarget: null,
  projectTarget: null,
  projectInformational: false,
  patchInformational: false,
  policyDigest: null,
  policyCommit: null,
  policyEdited: null,
  commentSections: null,
  branches: null,
  patchBranches: null,
  branchTarget: null,
  patchBranchTarget: null,
  part: null,
  expectParts: null,
  carryforward: null,
  filesDigest: null,
};

describe('ingestDigest', () => {
  it('keeps the digest a request without the patch fields had before they existed', () => {
    const before = createHash('sha256')
      .update(
        JSON.stringify(['covgate.ingest.v1', 'org_1', 'web', 'main', 84.1, 'main', null, 0.5, 1]),
      )
      .digest('hex');
    expect(ingestDigest(plain)).toBe(before);
  });

  it('changes with each of the patch fields', () => {
    const variants: Partial<CanonicalIngest>[] = [
      { component: 'api' },
      { pullRequest: 7 },
      { baseCommit: 'a'.repeat(40) },
      { patch: { covered: 0, coverable: 0 } },
      { patch: { covered: 1, coverable: 2 } },
      { patchTarget: 80 },
      { projectTarget: 70 },
      { projectInformational: true },
      { patchInformational: true },
      { policyDigest: 'f'.repeat(64) },
      { policyDigest: 'f'.repeat(64), policyCommit: 'a'.repeat(40) },
      { policyEdited: 'covgate.yml' },
      { policyEdited: '.covgate.yml' },
      { commentSections: [] },
      { commentSections: ['verdict'] },
      { commentSections: ['verdict', 'files'] },
      { branches: { covered: 0, total: 0 } },
      { branches: { covered: 1, total: 2 } },
      { branches: { covered: 2, total: 2 } },
      { patchBranches: { covered: 0, total: 0 } },
      { patchBranches: { covered: 1, total: 2 } },
      { branchTarget: 70 },
      { branchTarget: 0 },
      { patchBranchTarget: 70 },
      { filesDigest: fileListDigest([]) },
      { filesDigest: fileListDigest([{ path: 'a', covered: 0, coverable: 1 }]) },
      {
        filesDigest: fileListDigest([
          { path: 'a', covered: 0, coverable: 1, patchCovered: 0, patchCoverable: 0 },
        ]),
      },
      {
        filesDigest: fileListDigest([
          { path: 'a', covered: 0, coverable: 1, patchCovered: 0, patchCoverable: 1 },
        ]),
      },
      {
        filesDigest: fileListDigest([
          { path: 'a', covered: 0, coverable: 1, branchesCovered: 0, branchesTotal: 2 },
        ]),
      },
      {
        filesDigest: fileListDigest([
          { path: 'a', covered: 0, coverable: 1, branchesCovered: 1, branchesTotal: 2 },
        ]),
      },
    ];
    const digests = new Set(variants.map((variant) => ingestDigest({ ...plain, ...variant })));
    digests.add(ingestDigest(plain));
    expect(digests.size).toBe(variants.length + 1);
  });

  it('keeps the files digest of a list without branch counts', () => {
    const list = [{ path: 'a', covered: 0, coverable: 1, patchCovered: 0, patchCoverable: 1 }];
    const rows = JSON.stringify([['a', 0, 1, 0, 1]]);
    expect(fileListDigest(list)).toBe(createHash('sha256').update(rows).digest('hex'));
  });
});
