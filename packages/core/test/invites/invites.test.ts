import {
  buildInvite,
  createTestApi,
  TEST_SERVICE_TOKEN,
  TEST_SESSION_SECRET,
} from '@covgate/testing';
import { describe, expect, it } from 'vitest';
import {
  INVITE_LIFETIME_SECONDS,
  inviteStatus,
  inviteUrl,
} from '../../src/invites/invite-rules.js';

const json = (token: string) => ({
  authorization: `Bearer ${token}`,
  'content-type': 'application/json',
});

describe('inviteStatus', () => {
  it('reads accepted, revoked, expired from expiresAt on, else pending', () => {
    const invite = buildInvite();
    const before = new Date(invite.expiresAt.getTime() - 1000);
    expect(inviteStatus(invite, before)).toBe('pending');
    expect(inviteStatus(invite, invite.expiresAt)).toBe('expired');
    expect(inviteStatus({ ...invite, revokedAt: before }, before)).toBe('revoked');
    expect(inviteStatus({ ...invite, acceptedAt: before, acceptedBy: 'u' }, before)).toBe(
      'accepted',
    );
    expect(INVITE_LIFETIME_SECONDS).toBe(7 * 24 * 60 * 60);
  });
});

describe('invite links', () => {
  it('puts the token on /auth/invite under the base URL', () => {
    expect(inviteUrl('https://c.example.com/covgate/', 'cvgi_ab')).toBe(
      'https://c.example.com/covgate/auth/invite?token=cvgi_ab',
    );
  });

  it("are built on the request's origin and the base path when publicUrl is unset", async () => {
    const test = createTestApi({ basePath: '/coverage' });
    const org = await test.createOrganisation();
    const session = await test.request('/coverage/v1/sessions/create', {
      method: 'POST',
      headers: json(TEST_SERVICE_TOKEN),
      body: JSON.stringify({ user_id: 'usr_owner', org_id: org.id }),
    });
    const owner = (await session.json()) as { token: string };
    const response = await test.request('http://covgate.test/coverage/v1/invites', {
      method: 'POST',
      headers: json(owner.token),
      body: '{}',
    });
    const body = (await response.json()) as { url: string; token: string };
    expect(body.url).toBe(`http://covgate.test/coverage/auth/invite?token=${body.token}`);
  });

  it('refuses a publicUrl that is not an absolute http(s) URL at start-up', () => {
    for (const publicUrl of ['/covgate', 'ftp://x.example', '']) {
      expect(() => createTestApi({ publicUrl })).toThrow(
        'publicUrl must be an absolute http(s) URL',
      );
    }
  });

  it('accepts an invite made under SESSION_SECRET_PREVIOUS during a rotation', async () => {
    const before = createTestApi();
    const org = await before.createOrganisation();
    const owner = await before.createSession(org);
    const created = await before.request('/v1/invites', {
      method: 'POST',
      headers: json(owner.token),
      body: '{}',
    });
    const { token } = (await created.json()) as { token: string };
    const after = createTestApi({
      store: before.store,
      clock: before.clock,
      sessionSecret: 'the-new-session-secret-0123456789abcdef',
      previousSessionSecret: TEST_SESSION_SECRET,
    });
    const other = await after.createOrganisation();
    const joiner = await after.createSession(other, 'usr_joiner');

    const accepted = await after.request('/v1/invites/accept', {
      method: 'POST',
      headers: json(joiner.token),
      body: JSON.stringify({ token }),
    });

    expect(accepted.status).toBe(200);
    expect(await accepted.json()).toMatchObject({ org: org.slug, role: 'member' });
  });
});
