/**
 * The GitLab code host for browser login (`@covgate/core/gitlab`), kept apart from the main
 * entry so that applications without GitLab login do not load it.
 */
export { type GitlabCodeHostOptions, gitlabCodeHost } from './oauth/gitlab-code-host.js';
