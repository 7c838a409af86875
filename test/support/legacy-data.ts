import type { Store } from '@covgate/core';
import { buildExecution } from '@covgate/testing';
import { expect } from 'vitest';

/** How a dialect writes what the seeds of {@link legacyDataCases} need in raw SQL. */
export interface LegacySql {
  /** The SQL literal of an instant, as the dialect stores a timestamp column. */
  literal(instant: Date): string;
  /** The `commit` column's name, quoted (a reserved word in both dialects). */
  readonly commitColumn: string;
}

/**
 * Data an older release left: the shipped migrations before `firstLeftOut` (a tag such as
 * `0007`), then `seed`'s statements; the store, opened over it, must read it as `check` says.
 */
export interface LegacyDataCase {
  readonly name: string;
  readonly firstLeftOut: string;
  readonly seed: string[];
  check(store: Store): Promise<void>;
}

const BASE_MS = Date.UTC(2026, 2, 1, 12);
const instant = (seconds: number): Date => new Date(BASE_MS + seconds * 1000);

/** The upgrades every SQL store must carry old data through, written in `sql`'s dialect. */
export function legacyDataCases({ literal, commitColumn }: LegacySql): LegacyDataCase[] {
  const at = (seconds: number): string => literal(instant(seconds));
  return [
    {
      name: "fills the repositories' latest record for data written before migration 0001",
      firstLeftOut: '0001',
      seed: [
        `INSERT INTO executions (id, org_id, repo, branch, outcome, delta, coverage, created_at) VALUES
        ('exe_a', 'org_1', 'web', 'main', 'pass', '0.00', 80, ${at(0)}),
        ('exe_c', 'org_1', 'web', 'dev', 'fail', '-2.00', 78, ${at(5)}),
        ('exe_b', 'org_1', 'web', 'main', 'pass', '0.00', 80, ${at(5)}),
        ('exe_d', 'org_1', 'api', 'main', 'warn', '-0.60', 70, ${at(2)})`,
        `INSERT INTO execution_counters (org_id, repo, total) VALUES ('org_1', 'web', 3), ('org_1', 'api', 1)`,
      ],
      check: async (store) => {
        const repos = await store.listRepositories('org_1');
        expect(repos.map((r) => [r.repo, r.total, r.latest.id, r.latest.commit])).toEqual([
          ['web', 3, 'exe_c', null],
          ['api', 1, 'exe_d', null],
        ]);
      },
    },
    {
      name: 'reads records written before migration 0007 with their baseline, patch and component unknown (all null)',
      firstLeftOut: '0007',
      seed: [
        `INSERT INTO executions (id, org_id, repo, branch, outcome, delta, coverage, ${commitColumn}, created_at) VALUES
        ('exe_old', 'org_1', 'web', 'feature', 'warn', '-0.60', 79.4, 'abcdef1', ${at(0)})`,
      ],
      check: async (store) => {
        expect(await store.listExecutions({ orgId: 'org_1', repo: 'web', limit: 10 })).toEqual([
          // Every field the old row did not set reads back null: the builder's default for each
          // but the base branch and the deciding rule.
          buildExecution({
            id: 'exe_old',
            orgId: 'org_1',
            repo: 'web',
            branch: 'feature',
            outcome: 'warn',
            delta: '-0.60',
            coverage: 79.4,
            commit: 'abcdef1',
            createdAt: instant(0),
            baseBranch: null,
            decidedBy: null,
          }),
        ]);
      },
    },
    {
      name: 'links personal organisations made before migration 0003 to their users, never older namesakes',
      firstLeftOut: '0003',
      seed: [
        `INSERT INTO users (id, provider, external_id, login, created_at) VALUES
        ('usr_1', 'github', '4242', 'octo', ${at(0)}),
        ('usr_2', 'github', '4243', 'late', ${at(0)})`,
        `INSERT INTO organisations (id, slug, name, plan, created_at) VALUES
        ('org_1', 'github-4242', 'octo', 'free', ${at(0)}),
        ('org_2', 'github-4243', 'Made by an admin first', 'team', ${at(-100)}),
        ('org_3', 'acme', 'Acme', 'free', ${at(0)})`,
      ],
      check: async (store) => {
        expect(await store.findPersonalOrganisation('usr_1')).toEqual({
          id: 'org_1',
          slug: 'github-4242',
          name: 'octo',
          plan: 'free',
          createdAt: instant(0),
        });
        expect(await store.findPersonalOrganisation('usr_2')).toBeNull();
      },
    },
    {
      name: 'makes the users of sessions and personal organisations made before migration 0006 owners',
      firstLeftOut: '0006',
      seed: [
        `INSERT INTO organisations (id, slug, name, plan, created_at, personal_user_id) VALUES
        ('org_acme', 'acme', 'Acme', 'free', ${at(0)}, NULL),
        ('org_octo', 'github-4242', 'octo', 'free', ${at(5)}, 'usr_octo')`,
        `INSERT INTO sessions (id, token_hash, user_id, org_id, created_at, expires_at) VALUES
        ('ses_1', 'h1', 'usr_admin', 'org_acme', ${at(30)}, ${at(90)}),
        ('ses_2', 'h2', 'usr_admin', 'org_acme', ${at(10)}, ${at(70)}),
        ('ses_3', 'h3', 'usr_octo', 'org_octo', ${at(20)}, ${at(80)}),
        ('ses_4', 'h4', 'usr_ghost', 'org_gone', ${at(20)}, ${at(80)})`,
        `INSERT INTO sign_in_links (id, token_hash, user_id, org_id, created_at, expires_at) VALUES
        ('lnk_1', 'l1', 'usr_admin', 'org_acme', ${at(0)}, ${at(900)})`,
      ],
      check: async (store) => {
        expect(await store.listMembers('org_acme')).toEqual([
          {
            orgId: 'org_acme',
            userId: 'usr_admin',
            role: 'owner',
            createdAt: instant(10),
            login: null,
          },
        ]);
        expect(await store.listMembers('org_octo')).toEqual([
          {
            orgId: 'org_octo',
            userId: 'usr_octo',
            role: 'owner',
            createdAt: instant(5),
            login: null,
          },
        ]);
        expect(await store.listUserOrganisations('usr_ghost')).toEqual([]);
        expect((await store.useSignInLink('l1', instant(1)))?.role).toBe('owner');
      },
    },
    {
      name: 'reads repository links made before migration 0014 as GitHub links of the same repository',
      firstLeftOut: '0014',
      seed: [
        `INSERT INTO repository_links (org_id, repo, github_repo, api_url, credential, credential_hint, created_by, created_at, updated_at) VALUES
        ('org_1', 'web', 'Octo-Org/web.site', 'https://ghe.example.com/api/v3', 'v1.sealed', 'ab12', 'usr_1', ${at(0)}, ${at(5)})`,
      ],
      check: async (store) => {
        expect(await store.findRepositoryLink('org_1', 'web')).toEqual({
          orgId: 'org_1',
          repo: 'web',
          host: 'github',
          repository: 'Octo-Org/web.site',
          apiUrl: 'https://ghe.example.com/api/v3',
          credential: 'v1.sealed',
          credentialHint: 'ab12',
          createdBy: 'usr_1',
          createdAt: instant(0),
          updatedAt: instant(5),
        });
      },
    },
    {
      name: 'reads GitHub organisation links made before migration 0029 as links to GitHub, members joined through them too',
      firstLeftOut: '0029',
      seed: [
        `INSERT INTO github_org_links (org_id, github_org, linked_by, linked_at) VALUES
        ('org_1', 'octo-org', 'usr_1', ${at(0)}), ('org_2', 'other-org', 'usr_2', ${at(3)})`,
        `INSERT INTO memberships (org_id, user_id, role, created_at, source) VALUES
        ('org_1', 'usr_3', 'member', ${at(4)}, 'github-org')`,
      ],
      check: async (store) => {
        const octo = {
          orgId: 'org_1',
          host: 'github',
          organisation: 'octo-org',
          linkedBy: 'usr_1',
          linkedAt: instant(0),
        };
        expect(await store.findOrganisationLink('org_1')).toEqual(octo);
        expect(await store.listOrganisationLinks('github')).toEqual([
          octo,
          {
            ...octo,
            orgId: 'org_2',
            organisation: 'other-org',
            linkedBy: 'usr_2',
            linkedAt: instant(3),
          },
        ]);
        expect(await store.listOrganisationLinks('gitlab')).toEqual([]);
        expect(await store.findMember('org_1', 'usr_3')).toEqual({
          orgId: 'org_1',
          userId: 'usr_3',
          role: 'member',
          createdAt: instant(4),
          source: 'github-org',
        });
      },
    },
  ];
}
