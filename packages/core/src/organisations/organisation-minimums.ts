import type { OrganisationSettings } from '../storage/store.js';
import { formatTimestamp } from '../time/timestamp.js';

/** An organisation's settings as the API shows them. */
export interface OrganisationSettingsJson {
  /** The lowest patch target of every run of the organisation, or null for none. */
  min_patch_target: number | null;
  /** The lowest project target (absolute floor) of every run, or null for none. */
  min_project_target: number | null;
  /** The owner who last changed them, or null when they were never set. */
  updated_by: string | null;
  /** When they were last changed, or null when they were never set. */
  updated_at: string | null;
}

/** The settings of an organisation (never set: no minimum) as the API shows them. */
export function organisationSettingsToJson(
  settings: OrganisationSettings | null,
): OrganisationSettingsJson {
  return {
    min_patch_target: settings?.minPatchTarget ?? null,
    min_project_target: settings?.minProjectTarget ?? null,
    updated_by: settings?.updatedBy ?? null,
    updated_at: settings === null ? null : formatTimestamp(settings.updatedAt),
  };
}

/** A target and where it came from. */
export interface SourcedTarget<Source extends string> {
  value: number;
  source: Source;
}

/**
 * The target a run is judged with: the higher of its own (null: none) and the organisation's
 * minimum (null: none). The minimum decides only when it is strictly higher, so a run that
 * already asks as much keeps its own source. Both are compared as stored, truncated to
 * hundredths.
 */
export function raiseToMinimum<Source extends string>(
  own: SourcedTarget<Source> | null,
  minimum: number | null,
): SourcedTarget<Source | 'organisation'> | null {
  if (minimum === null) return own;
  if (own === null || minimum > own.value) return { value: minimum, source: 'organisation' };
  return own;
}
