/**
 * The Gitea and Forgejo code host for browser login (`@covgate/core/gitea`), kept apart from
 * the main entry so that applications without Gitea login do not load it.
 */
export { type GiteaCodeHostOptions, giteaCodeHost } from './oauth/gitea-code-host.js';
