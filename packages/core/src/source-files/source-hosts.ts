import type { CodeHostKind } from '../storage/store.js';
import { giteaSource } from './gitea-source.js';
import { githubSource } from './github-source.js';
import { gitlabSource } from './gitlab-source.js';
import type { SourceHost } from './source-host.js';

/** The host a repository link names, by its kind. */
export const SOURCE_HOSTS: Readonly<Record<CodeHostKind, SourceHost>> = {
  github: githubSource,
  gitlab: gitlabSource,
  gitea: giteaSource,
};
