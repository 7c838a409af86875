/**
 * The GitHub code host for browser login (`@covgate/core/github`), kept apart from the main
 * entry so that applications without GitHub login do not load it.
 */
export { type GithubCodeHostOptions, githubCodeHost } from './oauth/github-code-host.js';
