/** The public entries of `@covgate/core` that have an API report. */
export declare const PUBLIC_ENTRIES: readonly string[];

/**
 * Runs API Extractor on the built `.d.ts` of every public entry.
 *
 * @param update true rewrites `etc/<entry>.api.md`; false only compares.
 * @returns the entries whose report differs from their build, and every warning or error.
 */
export declare function checkApiReports(update: boolean): {
  changed: string[];
  messages: string[];
};
