import type { Execution } from '@covgate/client';

/** A run's feedback decisions as the service answered them (absent from an older service). */
type Feedback = NonNullable<Execution['feedback']>;

const HOST_NAMES: Readonly<Record<NonNullable<Feedback['link']>['host'], string>> = {
  github: 'GitHub',
  gitlab: 'GitLab',
  gitea: 'Gitea',
};

/**
 * `--verbose`: what the service decided about the run's statuses and comment, as its ingest
 * answer says (the sends come later; the run's page shows them). None from a service that
 * does not say.
 */
export function feedbackLines(feedback: Feedback | undefined): string[] {
  if (feedback === undefined) return [];
  if (feedback.link === null) {
    return [
      'feedback: nothing is posted: the repository is not linked to a code host (docs: required checks, "Why nothing was posted")',
    ];
  }
  const where = `${HOST_NAMES[feedback.link.host]} ${feedback.link.repository}`;
  return [
    `feedback to ${where} (sent by the service after this run; its page shows when):`,
    ...feedback.items.map((item) => `  ${item.name}: ${item.message}`),
  ];
}
