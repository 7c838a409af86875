import type { CodeHostKind } from '../storage/store.js';
import type { FeedbackHost } from './feedback-host.js';
import { giteaFeedbackHost } from './gitea-feedback-host.js';
import { githubFeedbackHost } from './github-feedback-host.js';
import { gitlabFeedbackHost } from './gitlab-feedback-host.js';

/**
 * The code hosts covgate gives feedback on, by the `host` of a repository link: the outbox
 * sends each delivery through its repository's, the linking route checks paths with it.
 */
export const FEEDBACK_HOSTS: Readonly<Record<CodeHostKind, FeedbackHost>> = {
  github: githubFeedbackHost,
  gitlab: gitlabFeedbackHost,
  gitea: giteaFeedbackHost,
};
