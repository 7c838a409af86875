import { describe, expect, it } from 'vitest';
import { checkOrgAccess, type Identity } from '../../src/identity/identity.js';

const tokenIdentity: Identity = {
  kind: 'token',
  tokenId: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
  orgId: 'org_01hzx',
  orgSlug: 'acme',
  scopes: ['execute'],
  expiresAt: null,
};

const sessionIdentity: Identity = {
  kind: 'session',
  sessionId: 'ses_01hzx',
  userId: 'usr_01hzx',
  orgId: 'org_01hzx',
  orgSlug: 'caf\u00e9',
  role: 'member',
  expiresAt: new Date('2030-01-01T00:00:00Z'),
};

describe('checkOrgAccess', () => {
  it('allows a token to name its own organisation', () => {
    expect(checkOrgAccess(tokenIdentity, 'acme')).toBe('allowed');
  });

  it('allows a session to name its own organisation', () => {
    expect(checkOrgAccess(sessionIdentity, 'caf\u00e9')).toBe('allowed');
  });

  it.each([
    ['another organisation', 'globex'],
    ['the same slug in another case', 'ACME'],
    ['the slug with surrounding whitespace', ' acme'],
    ['a slug that merely starts with it', 'acme-evil'],
    ['an empty slug', ''],
    ['the organisation id instead of its slug', 'org_01hzx'],
  ])('forbids a token naming %s', (_label, slug) => {
    expect(checkOrgAccess(tokenIdentity, slug)).toBe('forbidden');
  });

  it('forbids a slug that only matches after Unicode normalisation', () => {
    expect(checkOrgAccess(sessionIdentity, 'cafe\u0301')).toBe('forbidden');
  });
});
