export {
  DEFAULT_ALLOWED_ENV_NAMES,
  DEFAULT_ALLOWED_ENV_PREFIXES,
  NEVER_FORWARDED_ENV_NAMES,
} from './env-lists.js';
export { type FilterEnvOptions, filterEnv } from './filter-env.js';
