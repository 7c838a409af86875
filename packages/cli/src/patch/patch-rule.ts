import type { PatchCoverage } from './patch-coverage.js';

/** What the patch rule says of a patch: it fails only below the target. */
export type PatchOutcome = 'pass' | 'fail';

/**
 * The patch rule: a patch whose coverage (truncated to hundredths, as it is shown) is below
 * `target` fails; a patch of no coverable line passes, since it adds nothing to test.
 */
export function patchRule(patch: PatchCoverage, target: number): PatchOutcome {
  return patch.percent !== null && patch.percent < target ? 'fail' : 'pass';
}

/** A patch target as `--patch-target` takes it: a percentage from 0 to 100. */
export function parsePatchTarget(value: string): number | undefined {
  const n = Number(value);
  return value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 100 ? undefined : n;
}
