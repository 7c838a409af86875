/** A workspace package: its folder and its parsed `package.json`. */
export interface WorkspacePackage {
  dir: string;
  manifest: Record<string, unknown>;
}

/** The reference server's package name. */
export declare const SERVER: string;

/** Every workspace package under `repo`'s packages/ and examples/, by name. */
export declare function workspacePackages(repo: string): Map<string, WorkspacePackage>;

/** The names of the server's packages (itself included) whose build is missing or stale. */
export declare function staleBuilds(packages: Map<string, WorkspacePackage>): string[];
