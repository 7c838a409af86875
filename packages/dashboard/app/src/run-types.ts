import type { components, ExecutionDetail } from '@covgate/client';

/** A file of the run's patch with its patch lines (`patch_files` of `GET /v1/executions/{id}`). */
export type PatchFile = components['schemas']['PatchFile'];

/** A file whose coverage differs from the baseline run's; the missing side of an added or removed file is null. */
export type FileChange = components['schemas']['FileChange'];

/** The files whose coverage changed against the baseline run, most lost first (at most 1000 of `total`). */
export type Changes = components['schemas']['FileChanges'];

/** A folder of the run's files with the sums of the files under it (`''` is the root). */
export type TreeFolder = components['schemas']['Folder'];

/** `GET /v1/executions/{id}`: the record, its files, patch files, changes and folders. */
export type RunDetail = ExecutionDetail;

/** `GET /v1/repos/headline`: what a repository's page leads with. */
export type RepoHeadline = components['schemas']['RepoHeadline'];
