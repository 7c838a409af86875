import { describe } from 'vitest';
import { auditContract } from './audit.js';
import { authValidateContract } from './auth-validate.js';
import { badgeContract } from './badge.js';
import { carryforwardContract } from './carryforward.js';
import { ciTrustContract } from './ci-trust.js';
import { codeHostLinkContract } from './code-host-link.js';
import { crossCuttingContract } from './cross-cutting.js';
import { dashboardReadsContract } from './dashboard-reads.js';
import { executionsContract } from './executions.js';
import { feedbackDecisionsContract } from './feedback-decisions.js';
import { fileSourceContract } from './file-source.js';
import { githubOrgLinkContract } from './github-org-link.js';
import type { HttpContractOptions } from './harness.js';
import { idempotencyContract } from './idempotency.js';
import { internalErrorsContract } from './internal-errors.js';
import { invitesContract } from './invites.js';
import { lineDataContract } from './line-data.js';
import { membersContract } from './members.js';
import { organisationLinkContract } from './organisation-link.js';
import { organisationSettingsContract } from './organisation-settings.js';
import { organisationsContract } from './organisations.js';
import { patchCoverageContract } from './patch-coverage.js';
import { prunedDetailContract } from './pruned-detail.js';
import { rateLimitContract } from './rate-limit.js';
import { repoHeadlineContract } from './repo-headline.js';
import { repoWebUrlContract } from './repo-web-url.js';
import { repositoryLinkContract } from './repository-link.js';
import { runDetailContract } from './run-detail.js';
import { sessionsContract } from './sessions.js';
import { signInLinksContract } from './sign-in-links.js';
import { skippedCommitsContract } from './skipped-commits.js';
import { tokensContract } from './tokens.js';
import { verificationHardeningContract } from './verification-hardening.js';

/**
 * The black-box HTTP contract of covgate, run over a real socket against one adapter.
 * Every adapter (Fetch on node:http, Express, Hapi) runs the same cases.
 */
export function runHttpContractSuite(name: string, options: HttpContractOptions): void {
  describe(`HTTP contract: ${name}`, () => {
    crossCuttingContract(options);
    executionsContract(options);
    idempotencyContract(options);
    patchCoverageContract(options);
    skippedCommitsContract(options);
    feedbackDecisionsContract(options);
    lineDataContract(options);
    prunedDetailContract(options);
    carryforwardContract(options);
    fileSourceContract(options);
    runDetailContract(options);
    repoHeadlineContract(options);
    ciTrustContract(options);
    repoWebUrlContract(options);
    dashboardReadsContract(options);
    authValidateContract(options);
    sessionsContract(options);
    signInLinksContract(options);
    membersContract(options);
    invitesContract(options);
    githubOrgLinkContract(options);
    organisationLinkContract(options);
    organisationSettingsContract(options);
    repositoryLinkContract(options);
    codeHostLinkContract(options);
    organisationsContract(options);
    tokensContract(options);
    badgeContract(options);
    rateLimitContract(options);
    verificationHardeningContract(options);
    auditContract(options);
    internalErrorsContract(options);
  });
}
