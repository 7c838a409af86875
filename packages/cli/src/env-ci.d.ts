// env-ci 11 ships no type declarations; this is the part covgate reads.
declare module 'env-ci' {
  export interface CiEnvironment {
    isCi: boolean;
    service?: string;
    name?: string;
    commit?: string;
    branch?: string;
    tag?: string;
    isPr?: boolean;
    pr?: string | number;
    prBranch?: string;
    slug?: string;
    root?: string;
  }
  export default function envCi(options?: { env?: NodeJS.ProcessEnv; cwd?: string }): CiEnvironment;
}
