import { describe, expect, it } from 'vitest';
import { buildExecution, buildIdempotencyClaim, FIXTURE_TIME, secondsAfter } from '../fixtures.js';
import { givenOrganisation, givenRepo } from './parents.js';
import type { StoreUnderTest } from './store-under-test.js';

/** Bytes as text, for a comparison that names the difference and stays fast on 300 kB. */
const base64 = (bytes: Uint8Array | null): string | null =>
  bytes === null ? null : Buffer.from(bytes).toString('base64');

/** Bytes that stand for a stored per-file list: the store keeps them as they are. */
const filesBlob = (size: number): Uint8Array =>
  Uint8Array.from({ length: size }, (_, index) => (index * 31 + 7) % 256);

/**
 * Conformance tests of what patch coverage and monorepo components add to `ExecutionStore`
 * (per-file lists, one record by id, baselines per component and at a commit) and of
 * `RepositorySettingsStore`.
 */
export function describePatchAndComponents(store: StoreUnderTest): void {
  describe('patch coverage and components', () => {
    it('round-trips the patch, component, pull request, merge base and rule of a record', async () => {
      const where = await givenRepo(store());
      const record = buildExecution({
        ...where,
        branch: 'feature/patch',
        outcome: 'fail',
        component: 'api.v2_x-1',
        pullRequest: 2_147_483_647,
        baseCommit: '0123456789abcdef'.repeat(4),
        baselineSelection: 'base_commit',
        patchCovered: 0,
        patchCoverable: 1_000_000_000,
        patchTarget: 99.99,
        patchTargetSource: 'repository',
        decidedBy: 'patch',
        fileCount: 50_000,
        postedBy: 'oidc:gitlab:acme/platform/api@refs/heads/feature/patch',
      });
      const empty = buildExecution({
        ...where,
        createdAt: secondsAfter(FIXTURE_TIME, 1),
        baselineSelection: 'latest',
        patchCovered: 0,
        patchCoverable: 0,
        patchTarget: 0,
        patchTargetSource: 'default',
        decidedBy: 'delta',
        fileCount: 0,
      });
      await store().insertExecution(record);
      await store().insertExecution(empty);

      expect(await store().listExecutions({ ...where, limit: 10 })).toEqual([empty, record]);
      expect(await store().findExecution(where.orgId, record.id)).toEqual(record);
    });

    it('round-trips the policy file a record was judged by: its digest and commit', async () => {
      const where = await givenRepo(store());
      const record = buildExecution({
        ...where,
        policyDigest: 'f'.repeat(64),
        policyCommit: 'abcdef0123456789'.repeat(4),
      });
      const outsideGit = buildExecution({
        ...where,
        createdAt: secondsAfter(FIXTURE_TIME, 1),
        policyDigest: '0'.repeat(64),
        policyCommit: null,
      });
      await store().insertExecution(record);
      await store().insertExecution(outsideGit);
      expect(await store().findExecution(where.orgId, record.id)).toEqual(record);
      expect(await store().listExecutions({ ...where, limit: 10 })).toEqual([outsideGit, record]);
    });

    it('round-trips the policy file a change edits and the comment sections, null when none', async () => {
      const where = await givenRepo(store());
      const edited = buildExecution({
        ...where,
        policyEdited: 'covgate.yml',
        commentSections: ['verdict', 'files'],
      });
      const dotted = buildExecution({
        ...where,
        createdAt: secondsAfter(FIXTURE_TIME, 1),
        policyEdited: '.covgate.yml',
        commentSections: [],
      });
      const none = buildExecution({ ...where, createdAt: secondsAfter(FIXTURE_TIME, 2) });
      await store().insertExecution(edited);
      await store().insertExecution(dotted);
      await store().insertExecution(none);
      expect(await store().findExecution(where.orgId, edited.id)).toEqual(edited);
      expect(await store().listExecutions({ ...where, limit: 10 })).toEqual([none, dotted, edited]);
    });

    it('round-trips a project target and the rule it decided by', async () => {
      const where = await givenRepo(store());
      const record = buildExecution({
        ...where,
        outcome: 'fail',
        projectTarget: 99.99,
        decidedBy: 'target',
      });
      const zero = buildExecution({
        ...where,
        createdAt: secondsAfter(FIXTURE_TIME, 1),
        projectTarget: 0,
        decidedBy: 'delta',
      });
      await store().insertExecution(record);
      await store().insertExecution(zero);
      expect(await store().listExecutions({ ...where, limit: 10 })).toEqual([zero, record]);
    });

    it("round-trips a record's branch counts, and keeps them null when none were sent", async () => {
      const where = await givenRepo(store());
      const record = buildExecution({ ...where, branchesCovered: 7, branchesTotal: 12 });
      const none = buildExecution({ ...where, createdAt: secondsAfter(FIXTURE_TIME, 1) });
      await store().insertExecution(record);
      await store().insertExecution(none);
      expect(await store().findExecution(where.orgId, record.id)).toEqual(record);
      expect(await store().listExecutions({ ...where, limit: 10 })).toEqual([none, record]);
      expect(none).toMatchObject({ branchesCovered: null, branchesTotal: null });
    });

    it("round-trips the branch rules' targets, the patch's branch counts and their deciding rules", async () => {
      const where = await givenRepo(store());
      const byBranches = buildExecution({
        ...where,
        outcome: 'fail',
        decidedBy: 'branches',
        branchesCovered: 11,
        branchesTotal: 18,
        branchTarget: 70.25,
      });
      const byPatchBranches = buildExecution({
        ...where,
        createdAt: secondsAfter(FIXTURE_TIME, 1),
        outcome: 'warn',
        decidedBy: 'patch_branches',
        branchesCovered: 11,
        branchesTotal: 18,
        patchCovered: 9,
        patchCoverable: 10,
        patchTarget: 80,
        patchTargetSource: 'default',
        patchBranchesCovered: 1,
        patchBranchesTotal: 4,
        patchBranchTarget: 100,
      });
      await store().insertExecution(byBranches);
      await store().insertExecution(byPatchBranches);
      expect(await store().findExecution(where.orgId, byBranches.id)).toEqual(byBranches);
      expect(await store().listExecutions({ ...where, limit: 10 })).toEqual([
        byPatchBranches,
        byBranches,
      ]);
    });

    it('finds a record by id only in its own organisation', async () => {
      const where = await givenRepo(store());
      const record = buildExecution({ ...where });
      await store().insertExecution(record);

      expect(await store().findExecution(where.orgId, record.id)).toEqual(record);
      expect(await store().findExecution(await givenOrganisation(store()), record.id)).toBeNull();
      expect(await store().findExecution(where.orgId, `${record.id}x`)).toBeNull();
    });

    it('keeps the per-file list of a record byte for byte, for its organisation only', async () => {
      const where = await givenRepo(store());
      const withFiles = buildExecution({ ...where, fileCount: 3 });
      const without = buildExecution({ ...where });
      // Beyond 64 KiB: more than a MySQL BLOB holds.
      const files = filesBlob(300_000);
      await store().insertExecution(withFiles, files);
      await store().insertExecution(without, null);

      expect(base64(await store().findExecutionFiles(where.orgId, withFiles.id))).toBe(
        base64(files),
      );
      expect(await store().findExecutionFiles(where.orgId, without.id)).toBeNull();
      expect(
        await store().findExecutionFiles(await givenOrganisation(store()), withFiles.id),
      ).toBeNull();
    });

    it('keeps the per-file list of a record stored with an idempotency key', async () => {
      const where = await givenRepo(store());
      const record = buildExecution({ ...where, fileCount: 1 });
      const files = filesBlob(64);
      await store().insertKeyedExecution(record, buildIdempotencyClaim(), files);

      expect(base64(await store().findExecutionFiles(where.orgId, record.id))).toBe(base64(files));
    });

    it('stores no per-file list when the id already exists', async () => {
      const where = await givenRepo(store());
      const record = buildExecution({ ...where });
      await store().insertExecution(record);
      await expect(store().insertExecution({ ...record }, filesBlob(8))).rejects.toThrow();

      expect(await store().findExecutionFiles(where.orgId, record.id)).toBeNull();
    });

    describe('baselines per component', () => {
      it("takes a component's baseline from that component's runs only", async () => {
        const where = await givenRepo(store());
        const whole = buildExecution({ ...where, coverage: 70 });
        const api = buildExecution({
          ...where,
          component: 'api',
          coverage: 81,
          createdAt: secondsAfter(FIXTURE_TIME, 1),
        });
        const web = buildExecution({
          ...where,
          component: 'web',
          coverage: 52,
          createdAt: secondsAfter(FIXTURE_TIME, 2),
        });
        for (const record of [whole, api, web]) await store().insertExecution(record);

        expect(await store().findBaseline(where.orgId, where.repo, 'main', 'api')).toEqual(api);
        expect(await store().findBaseline(where.orgId, where.repo, 'main', 'web')).toEqual(web);
        expect(await store().findBaseline(where.orgId, where.repo, 'main', null)).toEqual(whole);
        expect(await store().findBaseline(where.orgId, where.repo, 'main')).toEqual(whole);
        expect(await store().findBaseline(where.orgId, where.repo, 'main', 'API')).toBeNull();
        expect(await store().findLatestExecution(where.orgId, where.repo, 'main', 'web')).toEqual(
          web,
        );
        expect(await store().findLatestExecution(where.orgId, where.repo, 'main')).toEqual(whole);
      });

      it('at a commit is the latest run there whatever its outcome, on that branch and component', async () => {
        const where = await givenRepo(store());
        const commit = 'abcdef0123456789abcdef0123456789abcdef01';
        const pass = buildExecution({ ...where, commit, outcome: 'pass' });
        const fail = buildExecution({
          ...where,
          commit,
          outcome: 'fail',
          createdAt: secondsAfter(FIXTURE_TIME, 1),
        });
        const later = secondsAfter(FIXTURE_TIME, 5);
        const others = [
          buildExecution({ ...where, commit: 'abcdef0', createdAt: later }),
          buildExecution({ ...where, commit, branch: 'dev', createdAt: later }),
          buildExecution({ ...where, commit, component: 'api', createdAt: later }),
          buildExecution({ ...where, createdAt: later }),
        ];
        for (const record of [pass, fail, ...others]) await store().insertExecution(record);

        expect(await store().findBaselineAtCommit(where.orgId, where.repo, 'main', commit)).toEqual(
          fail,
        );
        expect(
          await store().findBaselineAtCommit(where.orgId, where.repo, 'main', commit, 'api'),
        ).toEqual(others[2]);
        expect(
          await store().findBaselineAtCommit(where.orgId, where.repo, 'main', 'f'.repeat(40)),
        ).toBeNull();
        expect(
          await store().findBaselineAtCommit(
            await givenOrganisation(store()),
            where.repo,
            'main',
            commit,
          ),
        ).toBeNull();
      });
    });

    describe('repository settings', () => {
      it('are null until saved, then the last saved, per organisation and repository', async () => {
        const where = await givenRepo(store());
        expect(await store().findRepositorySettings(where.orgId, where.repo)).toBeNull();

        const first = {
          ...where,
          patchTarget: 85.5,
          webUrl: 'https://github.com/acme/api',
          webUrlSource: 'api' as const,
          expectedParts: { names: ['integration', 'unit'] },
          partsDeadlineMinutes: 90,
          carryforwardParts: { names: ['integration'] },
          ciTrust: [
            { provider: 'github' as const, repository: 'acme/api', ref: null, environment: null },
            {
              provider: 'gitlab' as const,
              repository: 'acme/platform/api',
              ref: 'refs/heads/main',
              environment: 'coverage',
            },
          ],
          updatedAt: FIXTURE_TIME,
        };
        await store().saveRepositorySettings(first);
        expect(await store().findRepositorySettings(where.orgId, where.repo)).toEqual(first);

        const cleared = {
          ...where,
          patchTarget: null,
          webUrl: null,
          webUrlSource: null,
          expectedParts: { count: 4 },
          partsDeadlineMinutes: null,
          carryforwardParts: { all: true as const },
          ciTrust: null,
          updatedAt: secondsAfter(FIXTURE_TIME, 60),
        };
        await store().saveRepositorySettings(cleared);
        expect(await store().findRepositorySettings(where.orgId, where.repo)).toEqual(cleared);

        expect(await store().findRepositorySettings(where.orgId, `${where.repo}x`)).toBeNull();
        expect(
          await store().findRepositorySettings(await givenOrganisation(store()), where.repo),
        ).toBeNull();
      });

      it("take a run's web URL only while none was set, creating the settings when needed", async () => {
        const where = await givenRepo(store());
        const url = 'https://gitlab.example.com/acme/api';
        expect(
          await store().claimRepositoryWebUrl(where.orgId, where.repo, url, FIXTURE_TIME),
        ).toBe(true);
        const claimed = {
          ...where,
          patchTarget: null,
          webUrl: url,
          webUrlSource: 'ingest',
          expectedParts: null,
          partsDeadlineMinutes: null,
          carryforwardParts: null,
          ciTrust: null,
          updatedAt: FIXTURE_TIME,
        };
        expect(await store().findRepositorySettings(where.orgId, where.repo)).toEqual(claimed);
        const later = secondsAfter(FIXTURE_TIME, 60);
        expect(await store().claimRepositoryWebUrl(where.orgId, where.repo, `${url}2`, later)).toBe(
          false,
        );
        expect(await store().findRepositorySettings(where.orgId, where.repo)).toEqual(claimed);
      });

      it('keep the patch target when a run sets the web URL, and never replace what a PATCH set', async () => {
        const where = await givenRepo(store());
        const url = 'https://github.com/acme/api';
        const target = {
          ...where,
          patchTarget: 70,
          webUrl: null,
          webUrlSource: null,
          expectedParts: { names: ['unit'] },
          partsDeadlineMinutes: 5,
          carryforwardParts: { names: ['unit'] },
          ciTrust: [
            { provider: 'github' as const, repository: 'acme/api', ref: null, environment: null },
          ],
          updatedAt: FIXTURE_TIME,
        };
        await store().saveRepositorySettings(target);
        const later = secondsAfter(FIXTURE_TIME, 1);
        expect(await store().claimRepositoryWebUrl(where.orgId, where.repo, url, later)).toBe(true);
        expect(await store().findRepositorySettings(where.orgId, where.repo)).toEqual({
          ...target,
          webUrl: url,
          webUrlSource: 'ingest',
          updatedAt: later,
        });
        // A PATCH that removed the URL is a decision too: runs do not bring it back.
        const removed = { ...target, webUrl: null, webUrlSource: 'api' as const };
        await store().saveRepositorySettings(removed);
        expect(await store().claimRepositoryWebUrl(where.orgId, where.repo, url, later)).toBe(
          false,
        );
        expect(await store().findRepositorySettings(where.orgId, where.repo)).toEqual(removed);
      });

      it('let one of several concurrent runs set the web URL', async () => {
        const where = await givenRepo(store());
        const results = await Promise.all(
          ['a', 'b', 'c', 'd'].map((name) =>
            store().claimRepositoryWebUrl(
              where.orgId,
              where.repo,
              `https://github.com/acme/${name}`,
              FIXTURE_TIME,
            ),
          ),
        );
        expect(results.filter(Boolean)).toHaveLength(1);
        const winner = ['a', 'b', 'c', 'd'][results.indexOf(true)];
        expect((await store().findRepositorySettings(where.orgId, where.repo))?.webUrl).toBe(
          `https://github.com/acme/${winner}`,
        );
      });
    });
  });
}
