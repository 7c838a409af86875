import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import packageJson from '../package.json' with { type: 'json' };
import type { DoctorOptions } from './commands/doctor.js';
import type { SkipOptions } from './commands/skip.js';
import { CliError, EXIT } from './errors.js';
import type { GateOptions } from './gate/options.js';
import type { Io } from './io.js';
import { parseExpectParts } from './parts/ci-part.js';
import { parsePatchTarget } from './patch/patch-rule.js';
import { pathMapParser, reportListParsers } from './report-options.js';
import { REPORT_FORMATS } from './reports/types.js';
import { parseTimeoutSeconds, TIMEOUT_RULE } from './service.js';

const VERSION: string = packageJson.version;

// Commands load their modules (execa, env-ci, the XML parser, the client) only when they run,
// so `covgate --version` and `--help` start fast.
const commands = {
  config: () => import('./commands/config.js'),
  doctor: () => import('./commands/doctor.js'),
  postBundle: () => import('./commands/post-bundle.js'),
  finish: () => import('./commands/finish.js'),
  flush: () => import('./commands/flush.js'),
  gate: () => import('./commands/gate.js'),
  login: () => import('./commands/login.js'),
  skip: () => import('./commands/skip.js'),
  tokens: () => import('./commands/tokens.js'),
  validate: () => import('./commands/validate.js'),
  wait: () => import('./commands/wait.js'),
};

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function threshold(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0 || n > 100) {
    throw new InvalidArgumentError('a number of percentage points above 0 and at most 100');
  }
  return n;
}

function patchTarget(value: string): number {
  const n = parsePatchTarget(value);
  if (n === undefined) throw new InvalidArgumentError('a percentage from 0 to 100');
  return n;
}

function component(value: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(value)) {
    throw new InvalidArgumentError(
      'a letter or digit, then letters, digits, ".", "_" or "-"; 64 characters at most',
    );
  }
  return value;
}

function expectParts(value: string): number | string[] {
  const parsed = parseExpectParts(value);
  if (parsed === undefined) {
    throw new InvalidArgumentError('a count from 1 to 1000, or part names separated by commas');
  }
  return parsed;
}

function waitSeconds(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 5 || n > 3600)
    throw new InvalidArgumentError('whole seconds from 5 to 3600');
  return n;
}

function seconds(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 604_800)
    throw new InvalidArgumentError('whole seconds from 0 to 604800');
  return n;
}

function timeout(value: string): number {
  const n = parseTimeoutSeconds(value);
  if (n === undefined) throw new InvalidArgumentError(TIMEOUT_RULE);
  return n;
}

const GATE_EXAMPLES = `
Examples:
  $ covgate run -- npx c8 --all --reporter=lcov node --test
  $ covgate run --report coverage/lcov.info --fail-on-warn -- npm test
  $ covgate report --report packages/a/coverage/lcov.info --report packages/b/coverage.xml
  $ covgate report --report api/target/site/jacoco/jacoco.xml --path-prefix api/src/main/java
  $ covgate report --dry-run --verbose
  $ covgate report --report coverage.out --repo api --branch main --json

Environment:
  COVGATE_TOKEN        API token with the execute scope (or COVGATE_TOKEN_FILE: a file holding it)
  COVGATE_ID_TOKEN     without COVGATE_TOKEN: the job's OIDC ID token (GitLab id_tokens); on
                       GitHub Actions with id-token: write the CLI asks for one itself
  COVGATE_URL          service URL (default http://localhost:8080)
  COVGATE_TIMEOUT      seconds per attempt at the service (default 30), like --timeout
  GITHUB_STEP_SUMMARY  when set, a Markdown summary is appended to it

Exit codes: 0 pass or warn, 1 gate failed (run: or the test command's own code),
2 usage or report error, 3 service unreachable or token refused (0 for an unavailable
service with --allow-unreachable), run: 128+n after signal n (130 Ctrl-C).`;

function gateOptions(command: Command): Command {
  const reports = reportListParsers();
  return command
    .addOption(
      new Option('--report <path>', 'coverage report to read; repeat to merge several')
        .argParser(reports.report)
        .default([], 'the reports found below the working folder'),
    )
    .option(
      '--path-prefix <folder>',
      'the folder the paths of the --report before it are relative to (default: guessed per format)',
      reports.pathPrefix,
    )
    .addOption(
      new Option('--path-map <from=to>', "rewrite a leading folder of the files' paths, e.g. /app=")
        .argParser(pathMapParser)
        .default([], 'none; repeatable'),
    )
    .addOption(
      new Option('--format <format>', 'report format')
        .choices(['auto', ...REPORT_FORMATS])
        .default('auto'),
    )
    .option('--repo <name>', 'repository name (default: from CI or git)')
    .option('--branch <name>', "branch (default: from CI or git; a pull request's head branch)")
    .option('--commit <sha>', 'commit id, 7-64 hex characters (default: from CI or git)')
    .option(
      '--base-branch <name>',
      "branch whose latest passing run is the baseline (default: the pull request's target, else the server's: main)",
    )
    .option(
      '--warn-threshold <points>',
      'drop in points above which the run warns (server default 0.5)',
      threshold,
    )
    .option(
      '--fail-threshold <points>',
      'drop in points above which the run fails (server default 1.0)',
      threshold,
    )
    .option(
      '--patch-target <percent>',
      "fail the run when the coverage of the lines it changes since the base branch is below this (default: the repository's, else the server's 80)",
      patchTarget,
    )
    .option(
      '--branch-target <percent>',
      'fail the run when its branch coverage is below this (needs reports with branch data; default: branches shown, not gated)',
      patchTarget,
    )
    .option(
      '--patch-branch-target <percent>',
      'fail the run when the branches of the lines it changes are covered below this (needs per-line branch data; default: none)',
      patchTarget,
    )
    .option(
      '--allow-missing-patch',
      'post a change whose patch cannot be measured (base branch or history missing and not fetchable) without patch coverage, with a warning, instead of exit 2',
    )
    .option(
      '--component <name>',
      'monorepo component the run covers (api, web...): baselines and badges are per component',
      component,
    )
    .option(
      '--part <name>',
      'this run is one part of its commit (a shard, a matrix job): the service merges the parts line by line and judges the commit once they are in (default from GitLab parallel or COVGATE_MATRIX)',
      component,
    )
    .option(
      '--expect-parts <count|names>',
      'the parts the commit has, as a count (4) or names (unit,integration); with --part',
      expectParts,
    )
    .option(
      '--wait <seconds>',
      "with --part, wait up to this long for the commit's merged verdict and exit with it (exit 1 if still pending); without, a part exits 0 while the verdict is pending",
      waitSeconds,
    )
    .option('--fail-on-warn', 'exit 1 on warn as well', false)
    .addOption(
      new Option(
        '--require-baseline',
        'exit 1 when the base branch has no run to compare with',
      ).default(false, 'recorded as the first run, exit 0'),
    )
    .option('--org <slug>', "organisation slug, checked against the token's")
    .option('--url <url>', 'service URL (default: COVGATE_URL, else http://localhost:8080)')
    .option(
      '--oidc',
      "post with the CI job's OIDC ID token even when COVGATE_TOKEN is set (without it, a job that has one posts with it)",
      false,
    )
    .addOption(
      new Option(
        '--oidc-audience <aud>',
        'the audience to ask the ID token for (default: the service URL, as the server expects)',
      ).env('COVGATE_OIDC_AUDIENCE'),
    )
    .option(
      '--id-token-var <name>',
      "the variable holding the job's ID token (GitLab id_tokens; default COVGATE_ID_TOKEN)",
    )
    .addOption(
      new Option(
        '--timeout <seconds>',
        'seconds each attempt at the service may take (default 30; at most 3 attempts)',
      )
        .env('COVGATE_TIMEOUT')
        .argParser(timeout),
    )
    .option(
      '--allow-unreachable',
      'exit 0 with a warning when the service cannot be reached, does not answer in time or answers 5xx or 429',
      false,
    )
    .option(
      '--cobertura-out <path>',
      "also write what was measured as one repository-relative Cobertura XML file (GitLab's artifacts:reports:coverage_report)",
    )
    .option('--json', 'print one JSON object on stdout and nothing else', false)
    .option('--dry-run', 'read the reports and print the request instead of sending it', false)
    .option(
      '--strict-paths',
      'exit 2 when a report names files the git checkout does not have, instead of warning',
      false,
    )
    .option('--verbose', 'print each report and file read, with its format and counts', false);
}

/**
 * What commander parses for `run` and `report`: the gate's options, plus `--path-prefix`
 * (already written into `report` by its parser) and a `--pass-env` that only `run` has.
 */
type Parsed = Omit<GateOptions, 'passEnv'> & {
  pathPrefix?: string;
  passEnv?: string[];
  bundle?: string;
};

function toGate({ pathPrefix: _, bundle: __, ...o }: Parsed) {
  return { ...o, passEnv: o.passEnv ?? [] };
}

/** Builds the `covgate` program; each action stores its exit code through `done`. */
export function createProgram(io: Io, done: (code: number) => void): Command {
  const program = new Command('covgate')
    .description(
      'Gate CI on coverage: run the tests with a filtered environment, read the coverage report, post it to covgate, exit with the verdict.',
    )
    .version(VERSION, '-v, --version')
    .option('--debug', 'print stack traces of unexpected errors')
    .enablePositionalOptions()
    .addHelpText(
      'after',
      `
Examples:
  $ covgate run -- npx c8 --all --reporter=lcov node --test
  $ covgate report --report coverage/lcov.info
  $ covgate wait --repo web

Exit codes: 0 pass or warn, 1 gate failed, 2 usage or report error, 3 service unreachable or token refused.
Documentation: https://github.com/covgate/covgate/blob/main/docs/cli.md`,
    )
    .showHelpAfterError('(run covgate --help for usage)')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      outputError: (s, write) => write(s.startsWith('error:') ? `covgate: ${s}` : s),
    });
  const child = (cmd: Command) => cmd.exitOverride().configureOutput(program.configureOutput());

  gateOptions(child(program.command('run')))
    .summary('run the tests, then read the report, post it and exit with the verdict')
    .description(
      'Runs <command> with a filtered environment (PATH, HOME, toolchain and CI variables; never DATABASE_URL, SERVICE_TOKEN, COVGATE_TOKEN...). If it fails, exits with its code and posts nothing; else reads the report, posts the run and exits with the verdict.',
    )
    .option('--pass-env <name>', 'also pass this variable to the command (repeatable)', collect, [])
    .option(
      '--bundle <file>',
      "in a pull request's job without the token (a fork's): write the run to this bundle file instead of posting it; a workflow_run job posts it with report --bundle",
    )
    .argument('<command...>', 'the test command, after --')
    .passThroughOptions()
    .addHelpText('after', GATE_EXAMPLES)
    .action(async (command: string[], o: Parsed) =>
      done(
        await (await commands.gate()).gate(
          { ...toGate(o), ...(o.bundle ? { bundleOut: o.bundle } : {}) },
          io,
          VERSION,
          command,
        ),
      ),
    );

  gateOptions(child(program.command('report')))
    .summary('read the report, post it and exit with the verdict')
    .description(
      'Reads the coverage report(s), posts the run and exits with the verdict; the tests already ran.',
    )
    .option(
      '--bundle <file>',
      "in a workflow_run job: post the bundle a pull request's job wrote (run --bundle), once it is checked against the event's head commit and pull request",
    )
    .addHelpText('after', GATE_EXAMPLES)
    // Stray words are refused by the action, with a hint for the usual cause (an unquoted glob).
    .allowExcessArguments()
    .action(async (o: Parsed, cmd: Command) => {
      if (cmd.args.length > 0) throw (await import('./glob-hint.js')).strayArgumentsError(cmd.args);
      if (o.bundle !== undefined) {
        done(await (await commands.postBundle()).postBundle(o.bundle, toGate(o), io, VERSION));
        return;
      }
      done(await (await commands.gate()).gate(toGate(o), io, VERSION));
    });

  child(program.command('validate'))
    .summary('check COVGATE_TOKEN and print its organisation and scopes')
    .option('--url <url>', 'service URL')
    .option('--json', 'print the answer as JSON', false)
    .action(async (o: { url?: string; json: boolean }) =>
      done(await (await commands.validate()).validate(o, io, VERSION)),
    );

  child(program.command('login'))
    .summary('store a session token read from stdin in your config folder (mode 0600)')
    .option('--url <url>', 'service URL the session belongs to')
    .option('--json', 'print the result as JSON', false)
    .addHelpText(
      'after',
      '\nExamples:\n  $ covgate login --url https://covgate.example.com < session.txt\n  $ echo "$COVGATE_SESSION" | covgate login',
    )
    .action(async (o: { url?: string; json: boolean }) =>
      done(await (await commands.login()).login(o, io, VERSION)),
    );

  const tokens = child(program.command('tokens')).summary(
    'list, create, rotate and revoke API tokens (needs `covgate login`)',
  );
  const tokenCommand = (name: string) =>
    child(tokens.command(name))
      .option('--url <url>', 'service URL')
      .option('--json', 'print JSON', false);
  tokenCommand('list')
    .summary("list the organisation's tokens")
    .action(async (o: { url?: string; json: boolean }) =>
      done(await (await commands.tokens()).listTokens(o, io, VERSION)),
    );
  tokenCommand('create')
    .summary('create a token with the execute scope and print its secret (shown once)')
    .argument('<name>', 'a name for the token, e.g. ci')
    .action(async (name: string, o: { url?: string; json: boolean }) =>
      done(await (await commands.tokens()).createToken(name, o, io, VERSION)),
    );
  tokenCommand('rotate')
    .summary('issue a new token; the old one stays valid for the grace period')
    .argument('<id>', 'the token id')
    .option('--grace <seconds>', 'grace period of the old token (server default 86400)', seconds)
    .action(async (id: string, o: { url?: string; json: boolean; grace?: number }) =>
      done(await (await commands.tokens()).rotateToken(id, o, io, VERSION)),
    );
  tokenCommand('revoke')
    .summary('revoke a token at once')
    .argument('<id>', 'the token id')
    .action(async (id: string, o: { url?: string; json: boolean }) =>
      done(await (await commands.tokens()).revokeToken(id, o, io, VERSION)),
    );

  const config = child(program.command('config')).summary(
    'check the policy file (covgate.yml) or show the effective policy',
  );
  child(config.command('check'))
    .summary('validate covgate.yml (or the file given): exit 0 when valid, else 2 with line:column')
    .argument('[file]', 'the file to check (default: covgate.yml or .covgate.yml at the root)')
    .option('--json', 'print the result as JSON', false)
    .action(async (file: string | undefined, o: { json: boolean }) =>
      done(await (await commands.config()).configCheck(file, o, io)),
    );
  child(config.command('import'))
    .summary('print a covgate.yml converted from a codecov.yml, and what it could not convert')
    .argument('<file>', 'the codecov.yml (or .codecov.yml) to convert')
    .option('--json', 'print {policy, not_converted} as JSON', false)
    .action(async (file: string, o: { json: boolean }) =>
      done(await (await commands.config()).configImport(file, o, io)),
    );
  child(config.command('show'))
    .summary('print the policy a run here is judged by, and where each value comes from')
    .option('--branch <name>', 'the branch of the run (default: from CI or git)')
    .option(
      '--repo <name>',
      'the repository whose patch target to read with COVGATE_TOKEN (default: from CI or the origin remote)',
    )
    .option('--base-branch <name>', 'the base branch (default: from CI, else the file, else main)')
    .option('--warn-threshold <points>', 'as covgate report takes it', threshold)
    .option('--fail-threshold <points>', 'as covgate report takes it', threshold)
    .option('--patch-target <percent>', 'as covgate report takes it', patchTarget)
    .option(
      '--url <url>',
      "service URL, to read the organisation's minimums with COVGATE_TOKEN (default: COVGATE_URL, else http://localhost:8080)",
    )
    .option('--json', 'print the effective policy as JSON', false)
    .action(
      async (o: {
        branch?: string;
        repo?: string;
        baseBranch?: string;
        warnThreshold?: number;
        failThreshold?: number;
        patchTarget?: number;
        url?: string;
        json: boolean;
      }) => done(await (await commands.config()).configShow(o, io, VERSION)),
    );

  child(program.command('finish'))
    .summary(
      'close a commit sent in parts: the service judges the parts it has, and this exits with the verdict',
    )
    .option('--repo <name>', 'repository name (default from CI or git)')
    .option('--commit <sha>', 'the commit whose parts were sent (default from CI or git)')
    .option('--component <name>', 'the component whose parts were sent', component)
    .option('--org <slug>', "organisation slug, checked against the token's")
    .option('--url <url>', 'service URL (default: COVGATE_URL, else http://localhost:8080)')
    .option('--json', 'print the record as JSON', false)
    .action(
      async (o: {
        repo?: string;
        commit?: string;
        component?: string;
        org?: string;
        url?: string;
        json: boolean;
      }) => done(await (await commands.finish()).finish(o, io, VERSION)),
    );

  child(program.command('flush'))
    .summary(
      'post the runs --allow-unreachable kept while the service was unavailable, with their first idempotency keys',
    )
    .option('--url <url>', "service URL (default: COVGATE_URL, else each run's own)")
    .option('--org <slug>', "organisation slug, checked against the token's")
    .option('--oidc', "post with the CI job's OIDC ID token even when COVGATE_TOKEN is set", false)
    .option('--json', 'print {flushed, kept, exit_code} as JSON', false)
    .addHelpText(
      'after',
      '\nKept runs are in .covgate/unsent/ at the repository root (COVGATE_UNSENT_DIR to change it).\nExit codes: 0 all posted (or none kept), 2 a run or file the service or covgate refuses, 3 service still unavailable or credential refused.',
    )
    .action(async (o: { url?: string; org?: string; oidc?: boolean; json: boolean }) =>
      done(await (await commands.flush()).flush(o, io, VERSION)),
    );

  child(program.command('skip'))
    .summary(
      'record that this commit has nothing to measure (docs only): its statuses go success with the reason and the base branch figure',
    )
    .description(
      "Records the commit as skipped instead of posting a run: the service stores no coverage for it, never takes it as a baseline, and sets a linked repository's covgate/project status (and covgate/patch on a pull request) to success, described with the reason and the base branch's figure. Use it in the job a paths: filter or a condition would otherwise leave out, so that a required check does not wait forever.",
    )
    .requiredOption('--reason <text>', 'why there is nothing to measure (1-200 characters)')
    .option('--repo <name>', 'repository name (default: from CI or git)')
    .option('--branch <name>', 'branch (default: from CI or git)')
    .option('--commit <sha>', 'the commit to skip (default: from CI or git; a pull request head)')
    .option(
      '--base-branch <name>',
      "branch whose figure the statuses show (default: the pull request's target, else main)",
    )
    .option(
      '--component <name>',
      'the component skipped (default: the whole repository)',
      component,
    )
    .option('--org <slug>', "organisation slug, checked against the token's")
    .option('--url <url>', 'service URL (default: COVGATE_URL, else http://localhost:8080)')
    .option('--oidc', "post with the CI job's OIDC ID token even when COVGATE_TOKEN is set", false)
    .addOption(
      new Option('--oidc-audience <aud>', 'the audience to ask the ID token for').env(
        'COVGATE_OIDC_AUDIENCE',
      ),
    )
    .option('--id-token-var <name>', "the variable holding the job's ID token")
    .option('--dry-run', 'print the request instead of sending it', false)
    .option('--json', 'print the record as JSON', false)
    .addHelpText(
      'after',
      `
Examples:
  $ covgate skip --reason "docs only"
  $ covgate skip --reason "no source change" --component api --org acme

Exit codes: 0 recorded, 2 usage error, 3 service unreachable or credential refused.`,
    )
    .action(async (o: SkipOptions) => done(await (await commands.skip()).skip(o, io, VERSION)));

  const doctorReports = reportListParsers();
  child(program.command('doctor'))
    .summary(
      'check what a run in this job needs (URL, credential, history, baseline, reports) and print each fix',
    )
    .description(
      'Checks, one line each, what `covgate run` in this job needs: the service URL answers as the covgate API; the credential (COVGATE_TOKEN with the execute scope, or the OIDC ID token) works; what the run is posted as; the merge base with the base branch is in the checkout (what `covgate run` would fetch otherwise; doctor fetches nothing); the base branch has a run to compare with; which reports are read and the paths the checkout lacks. Prints the fix of each check that fails. Posts nothing.',
    )
    .addOption(
      new Option('--report <path>', 'coverage report to read, as covgate run takes it')
        .argParser(doctorReports.report)
        .default([], 'the reports found below the working folder'),
    )
    .option('--path-prefix <folder>', 'as covgate run takes it', doctorReports.pathPrefix)
    .addOption(
      new Option('--path-map <from=to>', 'as covgate run takes it')
        .argParser(pathMapParser)
        .default([], 'none; repeatable'),
    )
    .addOption(
      new Option('--format <format>', 'report format')
        .choices(['auto', ...REPORT_FORMATS])
        .default('auto'),
    )
    .option('--strict-paths', 'fail the reports check on files the checkout does not have', false)
    .option('--repo <name>', 'repository name (default: from CI or git)')
    .option('--branch <name>', 'branch (default: from CI or git)')
    .option('--commit <sha>', 'commit id (default: from CI or git)')
    .option(
      '--base-branch <name>',
      "the base branch (default: the pull request's target, else main)",
    )
    .option('--component <name>', 'the component the run covers', component)
    .option('--org <slug>', "organisation slug, checked against the token's")
    .option('--url <url>', 'service URL (default: COVGATE_URL, else http://localhost:8080)')
    .option('--oidc', "check the CI job's OIDC ID token even when COVGATE_TOKEN is set", false)
    .addOption(
      new Option('--oidc-audience <aud>', 'the audience to ask the ID token for').env(
        'COVGATE_OIDC_AUDIENCE',
      ),
    )
    .option('--id-token-var <name>', "the variable holding the job's ID token")
    .option('--json', 'print {checks, exit_code} as JSON', false)
    .addHelpText(
      'after',
      `
Examples:
  $ covgate doctor
  $ covgate doctor --report coverage/lcov.info --json

Exit codes: 0 no check failed (warnings allowed), 1 a check failed, 2 usage error.`,
    )
    .action(async (o: DoctorOptions & { pathPrefix?: string }) => {
      const { pathPrefix: _, ...options } = o;
      done(await (await commands.doctor()).doctor(options, io, VERSION));
    });

  child(program.command('wait'))
    .summary(
      "wait for a repository's first run (every 5 s, up to 10 minutes) and print its verdict",
    )
    .requiredOption('--repo <name>', 'repository name')
    .option('--org <slug>', "organisation slug (default: the credential's)")
    .option('--url <url>', 'service URL')
    .option('--json', 'print the record as JSON', false)
    .action(async (o: { repo: string; org?: string; url?: string; json: boolean }) =>
      done(await (await commands.wait()).wait(o, io, VERSION)),
    );

  return program;
}

/**
 * Runs `covgate` with the given arguments (without `node` and the script) and resolves with
 * the exit code; errors become one line on stderr, never a stack trace unless `--debug`.
 */
export async function main(args: readonly string[], io: Io): Promise<number> {
  let code: number = EXIT.ok;
  const program = createProgram(io, (c) => {
    code = c;
  });
  try {
    await program.parseAsync([...args], { from: 'user' });
    return code;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    if (error instanceof CliError) {
      io.stderr.write(`covgate: ${error.message}\n`);
      return error.exitCode;
    }
    const debug = args.includes('--debug');
    io.stderr.write(
      `covgate: unexpected error: ${debug ? ((error as Error).stack ?? String(error)) : String((error as Error).message ?? error)}${debug ? '' : ' (run with --debug for details)'}\n`,
    );
    return EXIT.usage;
  }
}
