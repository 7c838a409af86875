import type { OAuthOptions } from '@covgate/core';
import { githubCodeHost } from '@covgate/core/github';
import { gitlabCodeHost } from '@covgate/core/gitlab';
import { createTestApi } from '@covgate/testing';
import { describe, expect, it } from 'vitest';

const github = githubCodeHost({
  clientId: 'id',
  clientSecret: 'super-secret-value',
  redirectUri: 'https://api.example.com/auth/github/callback',
});
const valid: OAuthOptions = {
  codeHosts: { github },
  dashboardUrl: 'https://dashboard.example.com/',
  resolveIdentity: async () => ({ userId: 'usr_1', orgId: 'org_1' }),
};

function start(oauth: OAuthOptions) {
  return () => createTestApi({ oauth });
}

describe('the oauth option of createApi', () => {
  it('starts with a valid configuration', () => {
    expect(start(valid)).not.toThrow();
  });

  it('refuses code host names that are not route names, and no code host at all', () => {
    for (const name of ['GitHub', 'git hub', '', 'a/b', '-x', 'x'.repeat(65), 'é']) {
      expect(start({ ...valid, codeHosts: { [name]: github } })).toThrow(/oauth\.codeHosts/);
    }
    expect(start({ ...valid, codeHosts: {} })).toThrow(/at least one code host/);
  });

  it("refuses the code host names link and invite: /auth/link and /auth/invite are covgate's own", () => {
    for (const name of ['link', 'invite']) {
      expect(start({ ...valid, codeHosts: { [name]: github } })).toThrow(
        `oauth.codeHosts: "${name}" is reserved (/auth/${name} is covgate's own)`,
      );
    }
  });

  it('refuses a dashboard URL that is not absolute http(s)', () => {
    for (const dashboardUrl of ['/dashboard', 'javascript:alert(1)', 'ftp://x.example', '']) {
      expect(start({ ...valid, dashboardUrl })).toThrow(
        'oauth.dashboardUrl must be an absolute http(s) URL',
      );
    }
  });

  it("refuses two code hosts that synchronise one host's organisation links, unless one turns it off", () => {
    const lab = (organisationLinks?: boolean) =>
      gitlabCodeHost({
        clientId: 'id',
        clientSecret: 'super-secret-value',
        redirectUri: 'https://api.example.com/auth/lab/callback',
        ...(organisationLinks === undefined ? {} : { organisationLinks }),
      });
    expect(start({ ...valid, codeHosts: { github, gitlab: lab(), work: lab() } })).toThrow(
      'oauth.codeHosts: "gitlab" and "work" both synchronise gitlab organisation links; turn organisationLinks off on one',
    );
    expect(lab(false).organisationLinks).toBeUndefined();
    expect(lab().organisationLinks).toBe('gitlab');
    expect(
      start({ ...valid, codeHosts: { github, gitlab: lab(), work: lab(false) } }),
    ).not.toThrow();
  });

  it('refuses a time budget that is not a whole number of ms in 1..120000', () => {
    for (const timeoutMs of [0, -5, 1.5, 120_001, Number.NaN]) {
      expect(start({ ...valid, timeoutMs })).toThrow(/oauth\.timeoutMs/);
    }
  });
});

describe('githubCodeHost', () => {
  it('defaults to the real GitHub endpoints, read:user and read:org', () => {
    const url = github.authorizationUrl({ state: 's'.repeat(43), codeVerifier: 'v'.repeat(43) });
    expect(`${url.origin}${url.pathname}`).toBe('https://github.com/login/oauth/authorize');
    expect(url.searchParams.get('scope')).toBe('read:user read:org');
  });

  it('takes GitHub Enterprise endpoints and other scopes', () => {
    const enterprise = githubCodeHost({
      clientId: 'id',
      clientSecret: 'secret',
      redirectUri: 'https://api.example.com/auth/ghe/callback',
      authorizeUrl: 'https://ghe.example.com/login/oauth/authorize',
      scopes: ['read:user', 'read:org'],
    });
    const url = enterprise.authorizationUrl({
      state: 's'.repeat(43),
      codeVerifier: 'v'.repeat(43),
    });
    expect(`${url.origin}${url.pathname}`).toBe('https://ghe.example.com/login/oauth/authorize');
    expect(url.searchParams.get('scope')).toBe('read:user read:org');
  });

  it('refuses missing credentials and bad URLs, naming the option and never the secret', () => {
    const base = {
      clientId: 'id',
      clientSecret: 'super-secret-value',
      redirectUri: 'https://a.example/cb',
    };
    const cases: [Record<string, unknown>, string][] = [
      [{ clientId: '' }, 'clientId is required'],
      [{ clientSecret: '' }, 'clientSecret is required'],
      [{ redirectUri: 'not a url' }, 'redirectUri must be an absolute http(s) URL'],
      [{ tokenUrl: 'file:///etc/passwd' }, 'tokenUrl must be an absolute http(s) URL'],
      [{ apiBaseUrl: 'super-secret-value' }, 'apiBaseUrl must be an absolute http(s) URL'],
    ];
    for (const [change, message] of cases) {
      const make = () =>
        githubCodeHost({ ...base, ...change } as Parameters<typeof githubCodeHost>[0]);
      expect(make).toThrow(message);
      try {
        make();
      } catch (error) {
        expect(String(error)).not.toContain('super-secret-value');
      }
    }
  });
});
