import { truncateToHundredths } from '../numbers/truncate-decimal.js';
import { raiseToMinimum } from '../organisations/organisation-minimums.js';
import type {
  OrganisationSettings,
  PatchTargetSource,
  ProjectTargetSource,
  RepositorySettings,
} from '../storage/store.js';
import { DEFAULT_PATCH_TARGET } from './patch-rule.js';

/** A target a run is judged with, truncated to hundredths, and where it came from. */
export interface JudgedTarget<Source> {
  value: number;
  source: Source;
}

/** The targets a run is judged with. */
export interface RunTargets {
  /** The patch target; null for a run without a patch. */
  patch: JudgedTarget<PatchTargetSource> | null;
  /** The project target (absolute floor); null when neither the run nor its organisation set one. */
  project: JudgedTarget<ProjectTargetSource> | null;
}

/**
 * The targets a run is judged with. The patch target is the run's, else the repository's
 * default, else {@link DEFAULT_PATCH_TARGET}; the project target is the run's. Then each is
 * raised to the organisation's minimum when that is higher (source `organisation`), so no
 * covgate.yml, flag or repository setting goes below it.
 */
export function runTargets(
  sent: { patchTarget: number | null; projectTarget: number | null },
  hasPatch: boolean,
  repository: RepositorySettings | null,
  organisation: OrganisationSettings | null,
): RunTargets {
  const ownProject =
    sent.projectTarget === null
      ? null
      : { value: hundredths(sent.projectTarget), source: 'run' as const };
  return {
    patch: hasPatch
      ? raiseToMinimum(ownPatchTarget(sent.patchTarget, repository), minimum(organisation, 'patch'))
      : null,
    project: raiseToMinimum(ownProject, minimum(organisation, 'project')),
  };
}

function ownPatchTarget(
  sent: number | null,
  repository: RepositorySettings | null,
): JudgedTarget<PatchTargetSource> {
  // Truncated as stored, so the first answer and its replay show the same target.
  if (sent !== null) return { value: hundredths(sent), source: 'run' };
  if (repository?.patchTarget != null)
    return { value: repository.patchTarget, source: 'repository' };
  return { value: DEFAULT_PATCH_TARGET, source: 'default' };
}

function minimum(settings: OrganisationSettings | null, of: 'patch' | 'project'): number | null {
  if (settings === null) return null;
  return of === 'patch' ? settings.minPatchTarget : settings.minProjectTarget;
}

const hundredths = (value: number): number => truncateToHundredths(value) / 100;
