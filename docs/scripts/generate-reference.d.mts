import type { TypeDocOptions } from 'typedoc';

/**
 * TypeDoc's options for the reference of `packages` (package folders) written to `outDir`,
 * read with `tsconfig`, with source links into the repository named in `repoDir`'s package.json.
 */
export function referenceOptions(options: {
  packages: string[];
  outDir: string;
  repoDir?: string;
  tsconfig?: string;
}): Partial<TypeDocOptions>;

/** Writes the HTTP and package reference pages and their sidebars. */
export function generateReference(): Promise<void>;
