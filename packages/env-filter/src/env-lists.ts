/**
 * Names forwarded by default, matched without regard to letter case.
 *
 * Every entry is a location, a locale, a platform fact or a boolean-like marker. Variables
 * whose values routinely embed credentials are left out on purpose even when a toolchain reads
 * them: registry, proxy and index URLs (`GOPROXY`, `PIP_INDEX_URL`, `npm_config_*`), free-form
 * option strings (`MAVEN_OPTS`, `JAVA_TOOL_OPTIONS`, `NODE_OPTIONS`) and agent sockets
 * (`SSH_AUTH_SOCK`). A caller who needs one adds it with `allow`.
 */
export const DEFAULT_ALLOWED_ENV_NAMES: readonly string[] = Object.freeze([
  // Shell basics (POSIX).
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'TMPDIR',
  'TMP',
  'TEMP',
  'LANG',
  'LANGUAGE',
  'TERM',
  'COLORTERM',
  'TZ',
  'NO_COLOR',
  'FORCE_COLOR',
  'XDG_CACHE_HOME',
  'XDG_CONFIG_HOME',
  'XDG_DATA_HOME',
  // Windows basics: many programs (and Node's own crypto start-up) fail without SystemRoot.
  'SystemRoot',
  'SystemDrive',
  'windir',
  'ComSpec',
  'PATHEXT',
  'OS',
  'USERNAME',
  'USERPROFILE',
  'HOMEDRIVE',
  'HOMEPATH',
  'APPDATA',
  'LOCALAPPDATA',
  'ProgramData',
  'ProgramFiles',
  'ProgramFiles(x86)',
  'ProgramW6432',
  'CommonProgramFiles',
  'NUMBER_OF_PROCESSORS',
  'PROCESSOR_ARCHITECTURE',
  // Go.
  'GOPATH',
  'GOROOT',
  'GOCACHE',
  'GOMODCACHE',
  'GOFLAGS',
  'GOOS',
  'GOARCH',
  'GOTOOLCHAIN',
  'GO111MODULE',
  'CGO_ENABLED',
  // JVM.
  'JAVA_HOME',
  'MAVEN_HOME',
  'M2_HOME',
  'GRADLE_HOME',
  'GRADLE_USER_HOME',
  // Rust.
  'CARGO_HOME',
  'RUSTUP_HOME',
  'RUSTUP_TOOLCHAIN',
  'CARGO_TARGET_DIR',
  // Python.
  'VIRTUAL_ENV',
  'PYENV_ROOT',
  'PYENV_VERSION',
  'CONDA_PREFIX',
  'PIP_CACHE_DIR',
  // Node.js.
  'NVM_DIR',
  'NVM_BIN',
  'VOLTA_HOME',
  'FNM_DIR',
  'PNPM_HOME',
  'COREPACK_HOME',
  // Ruby.
  'GEM_HOME',
  'GEM_PATH',
  'RBENV_ROOT',
  // .NET.
  'DOTNET_ROOT',
  'DOTNET_CLI_HOME',
  'NUGET_PACKAGES',
  // CI markers: the variables test runners read to detect CI, never the CI's tokens. Jenkins
  // marks itself only with URLs (JENKINS_URL), which this list keeps out; add it with `allow`.
  'CI',
  'CONTINUOUS_INTEGRATION',
  'GITHUB_ACTIONS',
  'GITLAB_CI',
  'BUILDKITE',
  'CIRCLECI',
  'TRAVIS',
  'TF_BUILD',
  'APPVEYOR',
  'TEAMCITY_VERSION',
  'DRONE',
  'SEMAPHORE',
  'BITBUCKET_BUILD_NUMBER',
  'CODEBUILD_BUILD_ID',
]);

/** Name prefixes forwarded by default (case-insensitive): the locale categories `LC_*`. */
export const DEFAULT_ALLOWED_ENV_PREFIXES: readonly string[] = Object.freeze(['LC_']);

/**
 * Names that are never forwarded, in any letter case, whatever the caller allows: the secrets
 * of the covgate service itself (its database and Redis URLs, service token, session secret,
 * webhook secrets, `TOKEN_PEPPER` and GitHub OAuth client secret, the `_PREVIOUS` values that
 * keep a rotated secret valid, and the secret variables of the Stripe and Razorpay webhook
 * presets), listed in docs/env-filter.md.
 */
export const NEVER_FORWARDED_ENV_NAMES: readonly string[] = Object.freeze([
  'DATABASE_URL',
  'SERVICE_TOKEN',
  'PROVIDER_A_WEBHOOK_SECRET',
  'PROVIDER_B_WEBHOOK_SECRET',
  'SESSION_SECRET',
  'REDIS_URL',
  'TOKEN_PEPPER',
  'STRIPE_WEBHOOK_SECRET',
  'RAZORPAY_WEBHOOK_SECRET',
  'GITHUB_CLIENT_SECRET',
  'GITLAB_CLIENT_SECRET',
  'GITEA_CLIENT_SECRET',
  'SERVICE_TOKEN_PREVIOUS',
  'SESSION_SECRET_PREVIOUS',
  'TOKEN_PEPPER_PREVIOUS',
  'PROVIDER_A_WEBHOOK_SECRET_PREVIOUS',
  'PROVIDER_B_WEBHOOK_SECRET_PREVIOUS',
]);
