import { describe, expect, it } from 'vitest';
import {
  ciIdentityOf,
  GITHUB_ACTIONS_ISSUER,
  postedByOf,
} from '../../src/ci-identity/ci-identity.js';

describe('ciIdentityOf a GitHub Actions token', () => {
  it('reads the repository, the ref and the environment', () => {
    expect(
      ciIdentityOf('github', {
        repository: 'acme/api',
        ref: 'refs/heads/main',
        environment: 'coverage',
      }),
    ).toEqual({
      provider: 'github',
      repository: 'acme/api',
      ref: 'refs/heads/main',
      environment: 'coverage',
    });
  });

  it('has no ref or environment when the claims are absent, empty or not text', () => {
    expect(ciIdentityOf('github', { repository: 'acme/api' })).toEqual({
      provider: 'github',
      repository: 'acme/api',
      ref: null,
      environment: null,
    });
    expect(ciIdentityOf('github', { repository: 'acme/api', ref: '', environment: '' })).toEqual({
      provider: 'github',
      repository: 'acme/api',
      ref: null,
      environment: null,
    });
    expect(ciIdentityOf('github', { repository: 'acme/api', ref: 7, environment: true })).toEqual({
      provider: 'github',
      repository: 'acme/api',
      ref: null,
      environment: null,
    });
  });

  it('identifies nothing without a repository claim, or with an empty or non-text one', () => {
    expect(ciIdentityOf('github', { ref: 'refs/heads/main' })).toBeNull();
    expect(ciIdentityOf('github', { repository: '' })).toBeNull();
    expect(ciIdentityOf('github', { repository: ['acme/api'] })).toBeNull();
  });

  it('ignores GitLab claims: project_path names no GitHub repository', () => {
    expect(ciIdentityOf('github', { project_path: 'acme/api' })).toBeNull();
  });

  it('keeps a GitHub ref as the token spells it (no ref_type involved)', () => {
    expect(
      ciIdentityOf('github', { repository: 'acme/api', ref: 'refs/pull/4/merge', ref_type: 'tag' })
        ?.ref,
    ).toBe('refs/pull/4/merge');
  });

  it('is issued by token.actions.githubusercontent.com', () => {
    expect(GITHUB_ACTIONS_ISSUER).toBe('https://token.actions.githubusercontent.com');
  });
});

describe('ciIdentityOf a GitLab CI token', () => {
  const gitlab = (claims: Record<string, unknown>) =>
    ciIdentityOf('gitlab', { project_path: 'acme/platform/api', ...claims });

  it('reads the project path and makes a branch or a tag ref full', () => {
    expect(gitlab({ ref: 'main', ref_type: 'branch', environment: 'review' })).toEqual({
      provider: 'gitlab',
      repository: 'acme/platform/api',
      ref: 'refs/heads/main',
      environment: 'review',
    });
    expect(gitlab({ ref: 'v1.2.0', ref_type: 'tag' })?.ref).toBe('refs/tags/v1.2.0');
  });

  it('has no ref when ref_type is missing, empty or unknown, or when ref is missing or empty', () => {
    expect(gitlab({ ref: 'main' })?.ref).toBeNull();
    expect(gitlab({ ref: 'main', ref_type: '' })?.ref).toBeNull();
    expect(gitlab({ ref: 'main', ref_type: 'merge_request' })?.ref).toBeNull();
    expect(gitlab({ ref_type: 'branch' })?.ref).toBeNull();
    expect(gitlab({ ref: '', ref_type: 'branch' })?.ref).toBeNull();
    expect(gitlab({ ref: '', ref_type: 'tag' })?.ref).toBeNull();
  });

  it('ignores GitHub claims: repository names no GitLab project', () => {
    expect(
      ciIdentityOf('gitlab', { repository: 'acme/api', ref: 'main', ref_type: 'branch' }),
    ).toBeNull();
    expect(ciIdentityOf('gitlab', { project_path: '' })).toBeNull();
  });
});

describe('postedByOf', () => {
  it('names the CI system, the repository and the ref when there is one', () => {
    expect(
      postedByOf({
        provider: 'github',
        repository: 'acme/api',
        ref: 'refs/heads/main',
        environment: 'x',
      }),
    ).toBe('oidc:github:acme/api@refs/heads/main');
    expect(
      postedByOf({
        provider: 'gitlab',
        repository: 'acme/platform/api',
        ref: null,
        environment: null,
      }),
    ).toBe('oidc:gitlab:acme/platform/api');
  });
});
