/** A part's name: the service's rule (a letter or digit, then `.`, `_`, `-`; 64 at most). */
export const PART_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** The part a run is, and the parts its commit expects, as CI says them. */
export interface CiPart {
  part: string;
  /** How many parts the commit has, when CI says (GitLab's `CI_NODE_TOTAL`). */
  expectCount?: number;
}

/**
 * A value of CI made a part name: characters outside the rule become `-`, runs of `-` one,
 * cut to 64; undefined when nothing is left.
 */
function partName(text: string): string | undefined {
  const name = text
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 64)
    .replace(/-+$/, '');
  return PART_NAME.test(name) ? name : undefined;
}

/**
 * The part of a run from CI, where CI names the job unambiguously (docs/decisions.md, "Parts
 * of one commit and completeness"): GitLab's `parallel:` (`CI_NODE_INDEX` of
 * `CI_NODE_TOTAL` above 1: `shard-2-of-4`, expecting 4); GitHub Actions with
 * `COVGATE_MATRIX: ${{ toJSON(matrix) }}` (`<job>-<values>`, as `test-22-ubuntu-latest`).
 * `GITHUB_JOB` alone is the same for every job of a matrix, so it makes no part: undefined.
 */
export function partFromCi(env: NodeJS.ProcessEnv): CiPart | undefined {
  const index = Number(env.CI_NODE_INDEX);
  const total = Number(env.CI_NODE_TOTAL);
  if (env.GITLAB_CI && Number.isInteger(index) && Number.isInteger(total) && total > 1) {
    if (index >= 1 && index <= total)
      return { part: `shard-${index}-of-${total}`, expectCount: total };
  }
  if (env.GITHUB_ACTIONS && env.COVGATE_MATRIX) {
    let matrix: unknown;
    try {
      matrix = JSON.parse(env.COVGATE_MATRIX);
    } catch {
      return undefined;
    }
    if (typeof matrix !== 'object' || matrix === null || Array.isArray(matrix)) return undefined;
    const values = Object.keys(matrix)
      .sort()
      .map((key) => (matrix as Record<string, unknown>)[key])
      .map((value) => (typeof value === 'object' ? JSON.stringify(value) : String(value)));
    const part = partName([env.GITHUB_JOB ?? '', ...values].filter(Boolean).join('-'));
    return part === undefined ? undefined : { part };
  }
  return undefined;
}

/** `--expect-parts`: a count (`4`) or names (`unit,integration`); undefined when invalid. */
export function parseExpectParts(value: string): number | string[] | undefined {
  if (/^\d+$/.test(value)) {
    const count = Number(value);
    return count >= 1 && count <= 1000 ? count : undefined;
  }
  const names = value.split(',').map((name) => name.trim());
  if (names.length > 100 || !names.every((name) => PART_NAME.test(name))) return undefined;
  return new Set(names).size === names.length ? names : undefined;
}
