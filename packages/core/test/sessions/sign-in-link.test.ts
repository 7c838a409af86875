import { createMemoryStore, hashSessionToken } from '@covgate/core';
import { createTestApi, TEST_SESSION_SECRET, type TestApi } from '@covgate/testing';
import { describe, expect, it } from 'vitest';
import { issueSignInLink, signInLinkUrl } from '../../src/sessions/sign-in-link.js';

const NAVIGATION = { 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' };

describe('issueSignInLink', () => {
  it('stores only the HMAC of the token under SESSION_SECRET, valid 15 minutes', async () => {
    const store = createMemoryStore();
    const now = new Date('2026-03-01T12:00:00.700Z');

    const { token, record } = await issueSignInLink(store, {
      orgId: 'org_1',
      userId: 'usr_1',
      sessionSecret: 'secret-one',
      now,
    });

    expect(token).toMatch(/^cvgl_[0-9a-f]{64}$/);
    expect(record).toMatchObject({
      tokenHash: hashSessionToken(token, 'secret-one'),
      createdAt: new Date('2026-03-01T12:00:00Z'),
      expiresAt: new Date('2026-03-01T12:15:00Z'),
      usedAt: null,
    });
    expect(record.id).toMatch(/^lnk_[0-9a-z]{26}$/);
    expect(JSON.stringify(record)).not.toContain(token.slice(5));
  });
});

describe('signInLinkUrl', () => {
  it('puts the token on /auth/link under the base URL, with or without a trailing slash', () => {
    for (const base of [
      'https://c.example.com/covgate',
      'https://c.example.com/covgate/',
      'https://c.example.com/covgate//',
    ]) {
      expect(signInLinkUrl(base, 'cvgl_ab')).toBe(
        'https://c.example.com/covgate/auth/link?token=cvgl_ab',
      );
    }
  });
});

/** A sign-in link for `userId` into a new organisation of `test`, issued under TEST_SESSION_SECRET. */
async function linkToNewOrganisation(test: TestApi, userId: string): Promise<string> {
  const org = await test.createOrganisation();
  const { token } = await issueSignInLink(test.store, {
    orgId: org.id,
    userId,
    sessionSecret: TEST_SESSION_SECRET,
    now: test.clock.now(),
  });
  return token;
}

describe('sign-in links and the session secret', () => {
  it('accepts a link issued under SESSION_SECRET_PREVIOUS during a rotation', async () => {
    const test = createTestApi({
      sessionSecret: 'the-new-session-secret-0123456789abcdef',
      previousSessionSecret: TEST_SESSION_SECRET,
      dashboardUrl: 'https://dashboard.example.com/',
    });
    const token = await linkToNewOrganisation(test, 'usr_rotated');

    const response = await test.request(`/auth/link?token=${token}`, { headers: NAVIGATION });

    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('https://dashboard.example.com/');
  });

  it('sends the browser to oauth.dashboardUrl, else to the base path, when dashboardUrl is unset', async () => {
    const test = createTestApi({ basePath: '/coverage' });
    const token = await linkToNewOrganisation(test, 'usr_1');

    const response = await test.request(`/coverage/auth/link?token=${token}`, {
      headers: NAVIGATION,
    });

    expect(response.headers.get('location')).toBe('/coverage/');
  });

  it('refuses a dashboardUrl that is not an absolute http(s) URL at start-up', () => {
    for (const dashboardUrl of ['/dashboard', 'javascript:alert(1)', '']) {
      expect(() => createTestApi({ dashboardUrl })).toThrow(
        'dashboardUrl must be an absolute http(s) URL',
      );
    }
  });
});
