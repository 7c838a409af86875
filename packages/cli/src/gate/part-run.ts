import type { Execution, ExecutionInput } from '@covgate/client';
import { CliError, EXIT } from '../errors.js';
import type { Io } from '../io.js';
import { partFromCi } from '../parts/ci-part.js';
import { type JudgedExecution, pendingLines, waitForVerdict } from '../parts/pending.js';
import type { Policy } from '../policy/policy.js';
import { clientFor, serviceError } from '../service.js';
import type { GateOptions } from './options.js';

/**
 * The body's `part`, `expect_parts` and `carryforward`: `--part` and `--expect-parts`, else what
 * CI says (GitLab's `parallel:`, GitHub's `COVGATE_MATRIX`), else the policy's `parts.expect`;
 * the policy's `parts.carryforward` as it is. Nothing when the run is not a part.
 *
 * @throws CliError (usage) for `--expect-parts` without a part
 */
export function resolvePart(
  options: Pick<GateOptions, 'part' | 'expectParts'>,
  env: NodeJS.ProcessEnv,
  policy: Policy['parts'] = {},
): Pick<ExecutionInput, 'part' | 'expect_parts' | 'carryforward'> {
  const fromCi = options.part === undefined ? partFromCi(env) : undefined;
  const part = options.part ?? fromCi?.part;
  const expect = options.expectParts ?? fromCi?.expectCount ?? policy.expect;
  if (part === undefined) {
    if (options.expectParts !== undefined) {
      throw new CliError(
        '--expect-parts needs --part (or a part CI names: GitLab parallel, COVGATE_MATRIX)',
        EXIT.usage,
      );
    }
    return {};
  }
  return {
    part,
    ...(expect !== undefined ? { expect_parts: expect } : {}),
    ...(policy.carryforward !== undefined ? { carryforward: policy.carryforward } : {}),
  };
}

/**
 * Parts whose commits' verdicts are pending, without `--wait`: what each commit has and lacks
 * (or one JSON object), and exit 0.
 */
export function printPending(
  records: readonly Execution[],
  part: string,
  json: boolean,
  io: Io,
): number {
  if (json) {
    const [first] = records;
    io.stdout.write(
      `${JSON.stringify({ outcome: 'pending', execution_id: first?.id, part, parts: first?.parts ?? null, exit_code: EXIT.ok })}\n`,
    );
    return EXIT.ok;
  }
  for (const record of records) {
    const label = record.component === undefined ? '' : `component ${record.component}: `;
    io.stdout.write(`${label}${pendingLines(record, part).out}\n`);
  }
  io.stderr.write(`${pendingLines(records[0] as Execution, part).err}\n`);
  return EXIT.ok;
}

/**
 * With `--wait`, the commit's run once judged, asking every 5 s; exit 1 when the time is up
 * (a gate that timed out has not passed).
 */
export async function awaitVerdict(
  input: {
    record: Execution;
    part: string;
    wait: number;
    url: string;
    token: string;
    version: string;
    timeout?: number;
  },
  io: Io,
): Promise<JudgedExecution | number> {
  const { record, part } = input;
  io.stderr.write(
    `covgate: ${pendingLines(record, part).out}; waiting up to ${input.wait} s for the verdict\n`,
  );
  const client = clientFor(io, input.url, input.token, input.version, input.timeout);
  let judged: JudgedExecution | null;
  try {
    judged = await waitForVerdict(client, record.id, input.wait, io);
  } catch (error) {
    throw serviceError(error, input.url);
  }
  if (judged === null) {
    io.stderr.write(
      `covgate: the verdict of ${record.repo}@${record.branch} is still pending after ${input.wait} s: the gate fails\n`,
    );
    return EXIT.gateFailed;
  }
  return judged;
}
