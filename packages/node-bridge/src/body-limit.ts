/**
 * Default request body limit: 1 MiB, the same limit the core enforces, so the bridge never
 * holds more than the core would accept.
 */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
