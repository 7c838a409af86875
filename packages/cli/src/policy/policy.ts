/** A repository's policy: covgate.yml as parsed and validated against covgate.schema.json. */
export interface Policy {
  project?: {
    /** A drop of more than this many points warns (`--warn-threshold`). */
    warn?: number;
    /** A drop of more than this many points fails (`--fail-threshold`). */
    fail?: number;
    /** A total below this percentage fails the run, whatever the baseline. */
    target?: number;
    /** A branch percentage below this fails the run (`--branch-target`). */
    branch_target?: number;
    /** The project rules report but never fail the run. */
    informational?: boolean;
  };
  patch?: {
    /** A patch covered below this percentage fails the run (`--patch-target`). */
    target?: number;
    /** A patch whose changed lines' branches are covered below this fails (`--patch-branch-target`). */
    branch_target?: number;
    /** The patch rule reports but never fails the run. */
    informational?: boolean;
  };
  /** Globs of repository-relative paths left out of every total. */
  ignore?: string[];
  /** Component name -> path globs. */
  components?: Record<string, string[]>;
  /** Reserved: the pull-request comment (false, or its sections). */
  comment?: boolean | { sections?: ('verdict' | 'patch' | 'files')[] };
  /** The base branch when neither `--base-branch` nor CI names one. */
  base_branch?: string;
  /** The parts of a commit's report from sharded CI: expected, and carried forward. */
  parts?: {
    /** The parts the commit's report waits for: names or a count (`--expect-parts`). */
    expect?: string[] | number;
    /** Which missing expected parts may be carried forward: every one (`true`) or these. */
    carryforward?: true | string[];
  };
}

/** The names a policy file may have at the repository's root, in the order they are looked for. */
export const POLICY_FILE_NAMES = ['covgate.yml', '.covgate.yml'] as const;

/** A policy file's name: `covgate.yml` or `.covgate.yml`. */
export type PolicyFileName = (typeof POLICY_FILE_NAMES)[number];
