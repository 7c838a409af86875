import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { importCodecov } from '../src/policy/codecov-import.js';
import { parsePolicy } from '../src/policy/parse-policy.js';
import { covgateIn } from './in-process.js';

// `covgate config import` on real codecov.yml files of public repositories, each fixture
// headed with the repository and commit it was taken from.
const fixture = (name: string) =>
  readFile(new URL(`fixtures/codecov/${name}`, import.meta.url), 'utf8');

describe('covgate config import, on real codecov.yml files', () => {
  it('0xERR0R/blocky@5a7b065: the drop threshold, ignore globs; patch auto not converted', async () => {
    expect(importCodecov(await fixture('blocky.yml'), 'codecov.yml')).toEqual({
      policy: {
        project: { fail: 80 },
        ignore: ['resolver/mocks.go', '**/*_enum.go', 'e2e/*.go'],
      },
      notConverted: [
        'coverage.status.patch.default.target: "auto": a patch target is a percentage',
        'coverage.status.patch.default.threshold: a patch has no drop threshold',
        'coverage.status.patch.default.base: no covgate equivalent',
        'coverage.status.patch.default.only_pulls: no covgate equivalent',
      ],
    });
  });

  it('0xPolygon/polygon-edge@4c5548c: a threshold of 0% is the smallest drop covgate takes', async () => {
    expect(importCodecov(await fixture('polygon-edge.yml'), 'codecov.yml')).toEqual({
      policy: { project: { fail: 0.01 } },
      notConverted: [],
    });
  });

  it('0xMimir/codecov-monorepo@fac22db: informational statuses; flags listed, not converted', async () => {
    expect(importCodecov(await fixture('codecov-monorepo.yml'), 'codecov.yml')).toEqual({
      policy: { project: { informational: true }, patch: { informational: true } },
      notConverted: [
        "flag_management: flags become covgate's parts of sharded CI runs: list them by hand in parts.expect and parts.carryforward",
      ],
    });
  });

  it('eBay/sisl@6f4e054: component_management paths become components; a repeated component_id is named, not dropped', async () => {
    const converted = importCodecov(await fixture('sisl.yml'), '.codecov.yml');
    const modules = [
      ['auth_manager', 'auth_manager'],
      ['cache', 'cache'],
      ['fds', 'fds'],
      ['file_watcher', 'file_watcher'],
      ['flip', 'flip'],
      ['grpc', 'grpc'],
      ['logging', 'logging'],
      ['metrics', 'metrics'],
      ['options', 'options'],
      ['settings', 'settings'],
      ['sobject', 'sobject'],
    ];
    expect(converted.policy).toEqual({
      ignore: [
        '**/*_test.c*',
        '**/*_test.h*',
        '**/*_generated.h',
        '**/*_pb.cc',
        '**/*_pb.h',
        '**/test*/*.c*',
        '**/test*/*.h*',
        '**/*test_flip.*',
        '**/grpc/tests/**',
      ],
      components: {
        ...Object.fromEntries(
          modules.map(([id, folder]) => [
            `modules_${id}`,
            [`src/${folder}/**`, `include/sisl/${folder}/**`],
          ]),
        ),
        // The file lists modules_version twice (Utility, then Version): the first keeps it.
        modules_version: ['src/utility/**', 'include/sisl/utility/**'],
      },
    });
    expect(converted.notConverted).toEqual([
      'codecov.notify: no covgate equivalent',
      'comment: no covgate equivalent',
      'component_management.default_rules: per-component statuses do not convert',
      'component_management.individual_components[12]: component_id "modules_version" repeats individual_components[11] ("Utility"): its paths src/version/**, include/sisl/version.hpp are not converted; give it a name of its own',
    ]);
    // What it prints is a policy covgate accepts.
    expect(() => parsePolicy(JSON.stringify(converted.policy), 'covgate.yml')).not.toThrow();
  });

  it('prints a covgate.yml that covgate config check accepts, and the rest on stderr', async () => {
    const dir = new URL('fixtures/codecov/', import.meta.url).pathname;
    const result = await covgateIn(dir, ['config', 'import', 'blocky.yml'], {
      PATH: process.env.PATH,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      '# covgate.yml converted from blocky.yml by covgate config import\nproject:\n  fail: 80\nignore:\n  - resolver/mocks.go\n  - "**/*_enum.go"\n  - e2e/*.go\n',
    );
    expect(parsePolicy(result.stdout, 'covgate.yml')).toEqual({
      project: { fail: 80 },
      ignore: ['resolver/mocks.go', '**/*_enum.go', 'e2e/*.go'],
    });
    expect(result.stderr.split('\n').filter((l) => l !== '')).toHaveLength(4);
    expect(result.stderr).toContain(
      'covgate: not converted: coverage.status.patch.default.only_pulls: no covgate equivalent\n',
    );
  });
});

describe('covgate config import, the rest of the common subset', () => {
  // Written here (not from a repository): the shapes Codecov's documentation gives.
  it('converts numeric targets less their threshold, components, branch, comment: false', () => {
    const text = `codecov:
  branch: develop
  require_ci_to_pass: yes
coverage:
  status:
    project:
      default:
        target: 80%
        threshold: 1%
    patch:
      default:
        target: 90
comment: false
ignore:
  - vendor
  - "generated/"
component_management:
  default_rules:
    statuses:
      - type: project
  individual_components:
    - component_id: api
      name: API
      paths: ["services/api/**", "libs/shared"]
    - component_id: "my web"
      paths: ["web/**"]
`;
    const converted = importCodecov(text, 'codecov.yml');
    expect(converted).toEqual({
      policy: {
        base_branch: 'develop',
        project: { target: 79 },
        patch: { target: 90 },
        comment: false,
        ignore: ['vendor/**', 'generated/**'],
        components: { api: ['services/api/**', 'libs/shared/**'] },
      },
      notConverted: [
        'codecov.require_ci_to_pass: no covgate equivalent',
        'component_management.default_rules: per-component statuses do not convert',
        'component_management.individual_components[1]: component_id "my web" is not a covgate component name',
      ],
    });
    expect(() => parsePolicy(JSON.stringify(converted.policy), 'covgate.yml')).not.toThrow();
  });

  it('refuses a file that is not YAML with exit 2', async () => {
    expect(() => importCodecov('coverage: [', 'codecov.yml')).toThrow(/^codecov\.yml: not YAML: /);
  });
});
