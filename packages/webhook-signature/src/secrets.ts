/** The secret (or secrets, during a rotation) a signature may have been made with. */
export interface SecretOptions {
  /** The webhook secret, usually read from the provider's `secretEnv` variable. */
  secret?: string | undefined;
  /** Several secrets, e.g. old and new during a rotation; a match with any one suffices. */
  secrets?: readonly (string | undefined)[] | undefined;
}

/** The usable secrets: non-empty strings only, so an unset variable can never match. */
export function usableSecrets({ secret, secrets = [] }: SecretOptions): string[] {
  return [secret, ...secrets].filter(
    (candidate): candidate is string => typeof candidate === 'string' && candidate.length > 0,
  );
}
