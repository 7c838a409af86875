import type { components, operations } from './generated/openapi.js';

/** Liveness answer of `GET /health`. */
export type Health = components['schemas']['Health'];
/** Readiness answer of `GET /health/ready`. */
export type Ready = components['schemas']['Ready'];
/** `GET /v1/repos/ci-trust`: a repository that trusts the CI job asking, and who its runs are recorded as. */
export type TrustedCiJob = components['schemas']['TrustedCiJob'];
/** A coverage-gate run as the API returns it. */
export type Execution = components['schemas']['Execution'];
/** The record a run was compared with (`Execution['baseline']` when there was one). */
export type Baseline = components['schemas']['Baseline'];
/** Body of `POST /v1/executions`. */
export type ExecutionInput = components['schemas']['ExecutionInput'];
/** What a commit's report merged from parts has, expects and lacks (`Execution['parts']`). */
export type Parts = components['schemas']['Parts'];
/** The parts a commit's report waits for: names or a count. */
export type ExpectedParts = components['schemas']['ExpectedParts'];
/** Body of `POST /v1/executions/finish`. */
export type FinishCommitInput = components['schemas']['FinishCommitInput'];
/** Body of `POST /v1/executions/skip`. */
export type SkipCommitInput = components['schemas']['SkipCommitInput'];
/** A run's patch and the patch rule's judgement (`Execution['patch']`). */
export type Patch = components['schemas']['Patch'];
/** One run with its per-file list (`GET /v1/executions/{id}`). */
export type ExecutionDetail = components['schemas']['ExecutionDetail'];
/** A file's covered, missed and changed lines (`GET /v1/executions/{id}/files/{path}`). */
export type FileLines = components['schemas']['FileLines'];
/** A file's source text at the run's commit, or why there is none (`.../files/{path}/source`). */
export type FileSource = components['schemas']['FileSource'];
/** One entry of a run's per-file list. */
export type FileLineCounts = components['schemas']['FileLineCounts'];
/** One entry of an ingest's `files`: counts, with the file's line data when sent. */
export type IngestFile = components['schemas']['IngestFile'];
/** A file's coverable and covered lines as an ingest sends them. */
export type LineData = components['schemas']['LineData'];
/** Answer of `GET /v1/repos/headline`. */
export type RepoHeadline = components['schemas']['RepoHeadline'];
/** A repository's settings (`/v1/repos/settings`). */
export type RepositorySettings = components['schemas']['RepositorySettings'];
/** The body of `PATCH /v1/repos/settings`. */
export type RepositorySettingsInput = components['schemas']['RepositorySettingsInput'];
/** A page of `GET /v1/executions`. */
export type ExecutionList = components['schemas']['ExecutionList'];
/** Answer of `GET /v1/executions/series`. */
export type ExecutionSeries = components['schemas']['ExecutionSeries'];
/** One run of a series: `[created_at, coverage, outcome, branch, delta]`. */
export type SeriesPoint = components['schemas']['SeriesPoint'];
/** The gate's verdict of a run. */
export type Outcome = components['schemas']['Outcome'];
/** One repository of `GET /v1/repos`. */
export type Repository = components['schemas']['Repository'];
/** Answer of `GET /v1/repos`. */
export type RepositoryList = components['schemas']['RepositoryList'];
/** Body of `POST /v1/organisations`. */
export type CreateOrganisationInput = components['schemas']['CreateOrganisationInput'];
/** Answer of `POST /v1/organisations`. */
export type CreatedOrganisation = components['schemas']['CreatedOrganisation'];
/** Answer of `GET /v1/session` and `POST /v1/session/organisation`. */
export type CurrentSession = components['schemas']['CurrentSession'];
/** A user's role in an organisation: `owner`, `admin` or `member`. */
export type Role = components['schemas']['Role'];
/** A member of an organisation. */
export type Member = components['schemas']['Member'];
/** Answer of `GET /v1/members`. */
export type MemberList = components['schemas']['MemberList'];
/** Body of `POST /v1/session/organisation`. */
export type SwitchOrganisationInput = NonNullable<
  operations['switchOrganisation']['requestBody']
>['content']['application/json'];
/** An organisation's link to a GitHub organisation. */
export type GithubLink = components['schemas']['GithubLink'];
/** Body of `POST /v1/organisation/github-link`. */
export type LinkGithubOrganisationInput = NonNullable<
  operations['linkGithubOrganisation']['requestBody']
>['content']['application/json'];
/** An organisation's link to an organisation on a code host (a GitLab group). */
export type OrganisationLink = components['schemas']['OrganisationLink'];
/** Body of `POST /v1/organisation/code-host-link`. */
export type OrganisationLinkInput = NonNullable<
  operations['linkOrganisation']['requestBody']
>['content']['application/json'];
/** An organisation's minimums: the lowest patch and project targets of its runs. */
export type OrganisationSettings = components['schemas']['OrganisationSettings'];
/** Body of `PATCH /v1/organisation/settings`. */
export type OrganisationSettingsInput = NonNullable<
  operations['patchOrganisationSettings']['requestBody']
>['content']['application/json'];
/** A repository's link to a GitHub repository (never its token, only `token_hint`). */
export type RepositoryLink = components['schemas']['RepositoryLink'];
/** A delivery to GitHub that failed for good, as a link lists it. */
export type DeliveryFailure = components['schemas']['DeliveryFailure'];
/** Body of `POST /v1/repos/github-link`. */
export type RepositoryLinkInput = NonNullable<
  operations['linkRepository']['requestBody']
>['content']['application/json'];
/** A repository's link to its code host, GitHub, GitLab or Gitea (never its token). */
export type CodeHostLink = components['schemas']['CodeHostLink'];
/** Body of `POST /v1/repos/code-host-link`. */
export type CodeHostLinkInput = NonNullable<
  operations['linkCodeHost']['requestBody']
>['content']['application/json'];
/** An invite as listed (never its token). */
export type Invite = components['schemas']['Invite'];
/** Answer of `GET /v1/invites`. */
export type InviteList = components['schemas']['InviteList'];
/** Answer of `POST /v1/invites`, with the one-time token and link. */
export type CreatedInvite = components['schemas']['CreatedInvite'];
/** Body of `POST /v1/invites`. */
export type CreateInviteInput = NonNullable<
  NonNullable<operations['createInvite']['requestBody']>['content']['application/json']
>;
/** Body of `POST /v1/invites/accept`. */
export type AcceptInviteInput = NonNullable<
  operations['acceptInvite']['requestBody']
>['content']['application/json'];
/** Body of `PATCH /v1/members/{user_id}`. */
export type ChangeMemberRoleInput = NonNullable<
  operations['changeMemberRole']['requestBody']
>['content']['application/json'];
/** Body of `POST /v1/sessions/create`. */
export type CreateSessionInput = components['schemas']['CreateSessionInput'];
/** Answer of `POST /v1/sessions/create`, with the one-time session token. */
export type CreatedSession = components['schemas']['CreatedSession'];
/** Body of `POST /v1/auth/validate`. */
export type ValidateTokenInput = components['schemas']['ValidateTokenInput'];
/** Answer of `POST /v1/auth/validate`. */
export type ValidatedToken = components['schemas']['ValidatedToken'];
/** An API token as listed (never its secret). */
export type Token = components['schemas']['Token'];
/** Answer of `GET /v1/tokens`. */
export type TokenList = components['schemas']['TokenList'];
/** Body of `POST /v1/tokens`. */
export type CreateTokenInput = components['schemas']['CreateTokenInput'];
/** Answer of `POST /v1/tokens`, with the one-time secret. */
export type CreatedToken = components['schemas']['CreatedToken'];
/** Body of `PATCH /v1/tokens/{id}`. */
export type UpdateTokenInput = components['schemas']['UpdateTokenInput'];
/** Body of `POST /v1/tokens/{id}/rotate`. */
export type RotateTokenInput = components['schemas']['RotateTokenInput'];
/** Answer of `POST /v1/tokens/{id}/rotate`, with the new one-time secret. */
export type RotatedToken = components['schemas']['RotatedToken'];

/** Query parameters of `GET /v1/executions`. */
export type ListExecutionsQuery = NonNullable<operations['listExecutions']['parameters']['query']>;
/** Query parameters of `GET /v1/executions/series`. */
export type ExecutionSeriesQuery = NonNullable<
  operations['getExecutionSeries']['parameters']['query']
>;
/** Query parameters of `GET /v1/repos/headline`. */
export type RepoHeadlineQuery = NonNullable<operations['getRepoHeadline']['parameters']['query']>;
/** Query parameters of `GET /v1/repos`. */
export type ListRepositoriesQuery = NonNullable<
  operations['listRepositories']['parameters']['query']
>;
/** Path and query parameters of `GET /v1/badge/{org}/{repo}`. */
export type BadgeParams = NonNullable<operations['getBadge']['parameters']['path']> &
  NonNullable<operations['getBadge']['parameters']['query']>;
