/** What a check of `covgate doctor` found. */
export type Verdict = 'pass' | 'warn' | 'fail' | 'skip';

/** The checks of `covgate doctor`, in the order they run and print. */
export const CHECK_NAMES = [
  'url',
  'credential',
  'target',
  'fetch depth',
  'base branch',
  'reports',
  'repository link',
] as const;

/** One check's name. */
export type CheckName = (typeof CHECK_NAMES)[number];

/** One check's outcome: what it found and, when it fails or warns, what to do. */
export interface CheckResult {
  check: CheckName;
  verdict: Verdict;
  message: string;
  /** The exact fix; null when nothing needs doing. */
  fix: string | null;
}

/** A check's outcome without its name, as each check module returns it. */
export type Finding = Omit<CheckResult, 'check'>;

/** A passing finding. */
export const pass = (message: string): Finding => ({ verdict: 'pass', message, fix: null });

/** A finding that needs a fix before runs work. */
export const fail = (message: string, fix: string): Finding => ({ verdict: 'fail', message, fix });

/** A finding that does not stop runs, with what would make it better. */
export const warn = (message: string, fix: string | null): Finding => ({
  verdict: 'warn',
  message,
  fix,
});

/** A check that could not run or does not apply here, and why. */
export const skip = (message: string): Finding => ({ verdict: 'skip', message, fix: null });

/** The line a check prints: `fail credential: <what>. Fix: <how>`. */
export function checkLine(result: CheckResult): string {
  const fix = result.fix === null ? '' : ` Fix: ${result.fix}`;
  return `${result.verdict} ${result.check}: ${result.message}${fix}`;
}
