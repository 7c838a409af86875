import { describe, expect, it } from 'vitest';
import type { CiIdentity } from '../../src/ci-identity/ci-identity.js';
import {
  type CiTrust,
  isTrusted,
  MAX_CI_TRUSTS,
  trustAdmits,
} from '../../src/ci-identity/ci-trust.js';

const identity = (fields: Partial<CiIdentity> = {}): CiIdentity => ({
  provider: 'github',
  repository: 'acme/api',
  ref: 'refs/heads/main',
  environment: 'coverage',
  ...fields,
});
const trust = (fields: Partial<CiTrust> = {}): CiTrust => ({
  provider: 'github',
  repository: 'acme/api',
  ref: null,
  environment: null,
  ...fields,
});

describe('trustAdmits', () => {
  it('admits the same CI system and repository whatever the ref and environment when it names none', () => {
    expect(trustAdmits(trust(), identity())).toBe(true);
    expect(trustAdmits(trust(), identity({ ref: null, environment: null }))).toBe(true);
  });

  it('refuses the same repository path presented by another CI system', () => {
    expect(trustAdmits(trust(), identity({ provider: 'gitlab' }))).toBe(false);
    expect(trustAdmits(trust({ provider: 'gitlab' }), identity())).toBe(false);
  });

  it('refuses another repository, including one differing only in case', () => {
    expect(trustAdmits(trust(), identity({ repository: 'acme/web' }))).toBe(false);
    expect(trustAdmits(trust(), identity({ repository: 'ACME/api' }))).toBe(false);
  });

  it('requires the exact ref it names, refusing a token without one', () => {
    const onMain = trust({ ref: 'refs/heads/main' });
    expect(trustAdmits(onMain, identity())).toBe(true);
    expect(trustAdmits(onMain, identity({ ref: 'refs/heads/feature' }))).toBe(false);
    expect(trustAdmits(onMain, identity({ ref: 'refs/tags/main' }))).toBe(false);
    expect(trustAdmits(onMain, identity({ ref: null }))).toBe(false);
  });

  it('requires the exact environment it names, refusing a job without one', () => {
    const inCoverage = trust({ environment: 'coverage' });
    expect(trustAdmits(inCoverage, identity())).toBe(true);
    expect(trustAdmits(inCoverage, identity({ environment: 'Coverage' }))).toBe(false);
    expect(trustAdmits(inCoverage, identity({ environment: null }))).toBe(false);
  });

  it('requires both the ref and the environment when it names both', () => {
    const both = trust({ ref: 'refs/heads/main', environment: 'coverage' });
    expect(trustAdmits(both, identity())).toBe(true);
    expect(trustAdmits(both, identity({ ref: 'refs/heads/x' }))).toBe(false);
    expect(trustAdmits(both, identity({ environment: 'production' }))).toBe(false);
  });
});

describe('isTrusted', () => {
  it('trusts nobody when no trust is listed', () => {
    expect(isTrusted(null, identity())).toBe(false);
    expect(isTrusted([], identity())).toBe(false);
  });

  it('trusts an identity that any one listed trust admits', () => {
    const trusts = [trust({ repository: 'acme/web' }), trust({ provider: 'gitlab' }), trust()];
    expect(isTrusted(trusts, identity())).toBe(true);
    expect(isTrusted(trusts.slice(0, 2), identity())).toBe(false);
  });

  it('lists at most 20 trusts per repository', () => {
    expect(MAX_CI_TRUSTS).toBe(20);
  });
});
