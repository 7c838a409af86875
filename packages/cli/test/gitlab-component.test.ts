import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { createRepo, type TestRepo } from './git-support.js';
import { covgateIn } from './in-process.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const COMPONENT = join(root, 'templates', 'covgate.yml');
const GUIDE = join(root, 'docs', 'guide', 'gitlab-merge-requests.md');

type Inputs = Record<string, { default?: unknown; type?: string; regex?: string }>;

/** The component's two documents: its `spec` header and its jobs. */
async function component(): Promise<{ inputs: Inputs; jobs: Record<string, unknown> }> {
  const documents = parseAllDocuments(await readFile(COMPONENT, 'utf8'));
  expect(documents.map((d) => d.errors)).toEqual([[], []]);
  const [header, body] = documents.map((d) => d.toJS()) as [
    { spec: { inputs: Inputs } },
    Record<string, unknown>,
  ];
  return { inputs: header.spec.inputs, jobs: body };
}

/**
 * The jobs as GitLab makes them from `inputs` (the include's, the rest by default): a value
 * that is one `$[[ inputs.x ]]` becomes the input itself (an array stays an array); within a
 * longer string the input's text is put in its place. An input with neither a value nor a
 * default fails, as GitLab fails the pipeline.
 */
function interpolate(value: unknown, spec: Inputs, given: Record<string, unknown>): unknown {
  const input = (name: string): unknown => {
    if (name in given) return given[name];
    const declared = spec[name];
    if (declared === undefined) throw new Error(`unknown input ${name}`);
    if (!('default' in declared)) throw new Error(`input ${name} is required`);
    return declared.default;
  };
  const whole = /^\$\[\[ inputs\.([\w-]+) \]\]$/;
  if (typeof value === 'string') {
    const only = whole.exec(value);
    if (only) return input(only[1] as string);
    return value.replace(/\$\[\[ inputs\.([\w-]+) \]\]/g, (_, name: string) => String(input(name)));
  }
  if (Array.isArray(value)) return value.map((v) => interpolate(v, spec, given));
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        interpolate(k, spec, given) as string,
        interpolate(v, spec, given),
      ]),
    );
  }
  return value;
}

/** The YAML blocks of the guide's "CI/CD component" section, in order. */
async function guideBlocks(): Promise<unknown[]> {
  const text = await readFile(GUIDE, 'utf8');
  const section = text.split('\n## ').find((s) => s.startsWith('4. A CI/CD component'));
  if (section === undefined) throw new Error('the guide has no "4. A CI/CD component" section');
  return [...section.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => parse(m[1] as string));
}

/** The words of a script line, with double-quoted words unquoted (as far as the job needs). */
function shellWords(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? (m[2] as string));
}

describe('the GitLab CI/CD component templates/covgate.yml', () => {
  it('declares the inputs the guide documents; only the server and the test command are required', async () => {
    const { inputs } = await component();
    expect(Object.keys(inputs)).toEqual([
      'server',
      'command',
      'args',
      'before-script',
      'cobertura-path',
      'image',
      'job-name',
      'stage',
    ]);
    const required = Object.entries(inputs)
      .filter(([, spec]) => !('default' in spec))
      .map(([name]) => name);
    expect(required).toEqual(['server', 'command']);
    expect(inputs['before-script']).toMatchObject({ type: 'array', default: [] });
    expect(new RegExp(inputs.server?.regex as string).test('https://covgate.example.com')).toBe(
      true,
    );
    expect(new RegExp(inputs.server?.regex as string).test('covgate.example.com')).toBe(false);
  });

  it("with the guide's inputs it is the plain job the guide gives", async () => {
    const { inputs, jobs } = await component();
    const [included, plain] = (await guideBlocks()) as [
      { include: { component: string; inputs: Record<string, unknown> }[] },
      Record<string, unknown>,
    ];
    expect(included.include[0]?.component).toMatch(/\/covgate@/);
    expect(interpolate(jobs, inputs, included.include[0]?.inputs ?? {})).toEqual(plain);
  });

  it('uploads the very file its script writes, even when the gate fails', async () => {
    const { inputs, jobs } = await component();
    const job = (
      interpolate(jobs, inputs, { server: 'https://covgate.example.com', command: 'npm test' }) as {
        covgate: {
          script: string[];
          artifacts: { when: string; reports: { coverage_report: Record<string, string> } };
        };
      }
    ).covgate;
    const words = shellWords(job.script[0] as string);
    expect(words.slice(0, 4)).toEqual(['npx', '--yes', '$COVGATE_URL/cli/covgate.tgz', 'run']);
    expect(words[words.indexOf('--cobertura-out') + 1]).toBe('covgate-cobertura.xml');
    expect(job.artifacts).toEqual({
      when: 'always',
      reports: {
        coverage_report: { coverage_format: 'cobertura', path: 'covgate-cobertura.xml' },
      },
    });
  });
});

describe("the component's script run by covgate in a checkout", () => {
  let repo: TestRepo;

  beforeAll(async () => {
    repo = await createRepo('gitlab-component');
    await repo.write({
      'src/a.js': 'one\ntwo\nthree\n',
      'write-lcov.mjs':
        "import { mkdirSync, writeFileSync } from 'node:fs';\nmkdirSync('coverage', { recursive: true });\nwriteFileSync('coverage/lcov.info', 'SF:src/a.js\\nDA:1,1\\nDA:2,1\\nDA:3,0\\nend_of_record\\n');\n",
    });
    await repo.commit('base');
  }, 60_000);

  afterAll(() => repo?.remove());

  it('runs the test command and writes the Cobertura file where the artifact is taken', async () => {
    const { inputs, jobs } = await component();
    const job = (
      interpolate(jobs, inputs, {
        server: 'https://covgate.example.com',
        command: `${process.execPath} write-lcov.mjs`,
        args: '--repo web --branch main --commit 0123456789abcdef0123456789abcdef01234567 --dry-run',
      }) as {
        covgate: {
          script: string[];
          artifacts: { reports: { coverage_report: { path: string } } };
        };
      }
    ).covgate;
    // The words after the CLI's own: what `covgate` receives from npx.
    const args = shellWords(job.script[0] as string).slice(3);
    const result = await covgateIn(repo.dir, args, repo.env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      'covgate: wrote covgate-cobertura.xml (Cobertura, 1 file, 2 of 3 lines covered)\n',
    );
    const path = join(repo.dir, job.artifacts.reports.coverage_report.path);
    expect(existsSync(path)).toBe(true);
    expect(await readFile(path, 'utf8')).toContain('<line number="3" hits="0"/>');
  });
});
