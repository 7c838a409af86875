import type { components, operations } from './generated/openapi.js';

type Schemas = components['schemas'];

/** Liveness answer of `GET /health`. */
export type Health = Schemas['Health'];
/** Readiness answer of `GET /health/ready`. */
export type Ready = Schemas['Ready'];
/** A coverage-gate run as the API returns it. */
export type Execution = Schemas['Execution'];
/** The record a run was compared with (`Execution['baseline']` when there was one). */
export type Baseline = Schemas['Baseline'];
/** Body of `POST /v1/executions`. */
export type ExecutionInput = Schemas['ExecutionInput'];
/** A run's patch and the patch rule's judgement (`Execution['patch']`). */
export type Patch = Schemas['Patch'];
/** One run with its per-file list (`GET /v1/executions/{id}`). */
export type ExecutionDetail = Schemas['ExecutionDetail'];
/** One entry of a run's per-file list. */
export type FileLineCounts = Schemas['FileLineCounts'];
/** A repository's settings (`/v1/repos/settings`). */
export type RepositorySettings = Schemas['RepositorySettings'];
/** The body of `PATCH /v1/repos/settings`. */
export type RepositorySettingsInput = Schemas['RepositorySettingsInput'];
/** A page of `GET /v1/executions`. */
export type ExecutionList = Schemas['ExecutionList'];
/** Answer of `GET /v1/executions/series`. */
export type ExecutionSeries = Schemas['ExecutionSeries'];
/** One run of a series: `[created_at, coverage, outcome, branch, delta]`. */
export type SeriesPoint = Schemas['SeriesPoint'];
/** The gate's verdict of a run. */
export type Outcome = Schemas['Outcome'];
/** One repository of `GET /v1/repos`. */
export type Repository = Schemas['Repository'];
/** Answer of `GET /v1/repos`. */
export type RepositoryList = Schemas['RepositoryList'];
/** Body of `POST /v1/organisations`. */
export type CreateOrganisationInput = Schemas['CreateOrganisationInput'];
/** Answer of `POST /v1/organisations`. */
export type CreatedOrganisation = Schemas['CreatedOrganisation'];
/** Answer of `GET /v1/session` and `POST /v1/session/organisation`. */
export type CurrentSession = Schemas['CurrentSession'];
/** A user's role in an organisation: `owner`, `admin` or `member`. */
export type Role = Schemas['Role'];
/** A member of an organisation. */
export type Member = Schemas['Member'];
/** Answer of `GET /v1/members`. */
export type MemberList = Schemas['MemberList'];
/** Body of `POST /v1/session/organisation`. */
export type SwitchOrganisationInput = NonNullable<
  operations['switchOrganisation']['requestBody']
>['content']['application/json'];
/** An organisation's link to a GitHub organisation. */
export type GithubLink = Schemas['GithubLink'];
/** Body of `POST /v1/organisation/github-link`. */
export type LinkGithubOrganisationInput = NonNullable<
  operations['linkGithubOrganisation']['requestBody']
>['content']['application/json'];
/** An invite as listed (never its token). */
export type Invite = Schemas['Invite'];
/** Answer of `GET /v1/invites`. */
export type InviteList = Schemas['InviteList'];
/** Answer of `POST /v1/invites`, with the one-time token and link. */
export type CreatedInvite = Schemas['CreatedInvite'];
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
export type CreateSessionInput = Schemas['CreateSessionInput'];
/** Answer of `POST /v1/sessions/create`, with the one-time session token. */
export type CreatedSession = Schemas['CreatedSession'];
/** Body of `POST /v1/auth/validate`. */
export type ValidateTokenInput = Schemas['ValidateTokenInput'];
/** Answer of `POST /v1/auth/validate`. */
export type ValidatedToken = Schemas['ValidatedToken'];
/** An API token as listed (never its secret). */
export type Token = Schemas['Token'];
/** Answer of `GET /v1/tokens`. */
export type TokenList = Schemas['TokenList'];
/** Body of `POST /v1/tokens`. */
export type CreateTokenInput = Schemas['CreateTokenInput'];
/** Answer of `POST /v1/tokens`, with the one-time secret. */
export type CreatedToken = Schemas['CreatedToken'];
/** Body of `PATCH /v1/tokens/{id}`. */
export type UpdateTokenInput = Schemas['UpdateTokenInput'];
/** Body of `POST /v1/tokens/{id}/rotate`. */
export type RotateTokenInput = Schemas['RotateTokenInput'];
/** Answer of `POST /v1/tokens/{id}/rotate`, with the new one-time secret. */
export type RotatedToken = Schemas['RotatedToken'];

/** Query parameters of `GET /v1/executions`. */
export type ListExecutionsQuery = NonNullable<operations['listExecutions']['parameters']['query']>;
/** Query parameters of `GET /v1/executions/series`. */
export type ExecutionSeriesQuery = NonNullable<
  operations['getExecutionSeries']['parameters']['query']
>;
/** Query parameters of `GET /v1/repos`. */
export type ListRepositoriesQuery = NonNullable<
  operations['listRepositories']['parameters']['query']
>;
/** Path and query parameters of `GET /v1/badge/{org}/{repo}`. */
export type BadgeParams = NonNullable<operations['getBadge']['parameters']['path']> &
  NonNullable<operations['getBadge']['parameters']['query']>;
