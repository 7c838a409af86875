/** One file's entry in vitest's results cache. */
export type CachedResult = [string, { duration: number; failed: boolean }];

/** Files that took at least this long (ms) are listed as slow. */
export declare const SLOW_FILE_MS: number;

/** Where vitest keeps the durations of the last run of each file under `repo`. */
export declare function resultsCachePath(repo: string): string;

/** The list to check in: the files that passed in at least `SLOW_FILE_MS`, in whole seconds. */
export declare function slowFilesFromResults(
  results: readonly CachedResult[],
): Record<string, number>;
