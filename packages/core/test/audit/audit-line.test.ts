import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type AuditEvent, formatAuditLine } from '../../src/audit/audit-line.js';

const API_TOKEN = `cvg_${'0123456789abcdef'.repeat(2)}a1b2c3d4`;
const SESSION_TOKEN = 'cvgs_Zm9vYmFyLWJhei1xdXV4LTEyMzQ1Njc4OTAtX19fXw';

/** Splits a line the way a naive log reader would: on spaces, then at the first `=`. */
function readLine(line: string): { type: string; fields: Record<string, string> } {
  expect(line).toMatch(/^\[audit\] [a-z.]+( [a-z_]+=[\x21-\x7e]*)+$/);
  const [, type = '', ...parts] = line.split(' ');
  const fields: Record<string, string> = {};
  for (const part of parts) {
    expect(part.split('=')).toHaveLength(2);
    const [key = '', value = ''] = part.split('=');
    expect(fields).not.toHaveProperty(key);
    fields[key] = value;
  }
  return { type, fields };
}

function decode(value: string): string {
  return value.startsWith('"') ? (JSON.parse(value) as string) : value;
}

const tokenCreate = (agentType: string): Extract<AuditEvent, { type: 'token.create' }> => ({
  type: 'token.create',
  orgId: 'org_x',
  tokenId: 'abc',
  scopes: ['execute'],
  agentType,
});

const authDenied = (path: string): AuditEvent => ({
  type: 'auth.denied',
  method: 'GET',
  path,
  reason: 'missing_token',
  remote: '127.0.0.1',
});

describe('formatAuditLine patterns', () => {
  it('writes session.create', () => {
    expect(
      formatAuditLine({
        type: 'session.create',
        userId: 'usr_01hf7yat000000000000000000',
        orgId: 'org_01hf7yat000000000000000001',
        sessionId: 'ses_01hf7yat000000000000000002',
      }),
    ).toBe(
      '[audit] session.create user_id=usr_01hf7yat000000000000000000 org_id=org_01hf7yat000000000000000001 session_id=ses_01hf7yat000000000000000002',
    );
  });

  it('writes session.create with method=link after the documented pattern for a sign-in link', () => {
    expect(
      formatAuditLine({
        type: 'session.create',
        userId: 'usr_admin',
        orgId: 'org_01hf7yat000000000000000001',
        sessionId: 'ses_01hf7yat000000000000000002',
        method: 'link',
      }),
    ).toBe(
      '[audit] session.create user_id=usr_admin org_id=org_01hf7yat000000000000000001 session_id=ses_01hf7yat000000000000000002 method=link',
    );
  });

  it('writes the member and invite lines', () => {
    const org = 'org_01hf7yat000000000000000001';
    const invite = 'inv_01hf7yat000000000000000002';
    expect([
      formatAuditLine({ type: 'member.add', orgId: org, userId: 'usr_a', role: 'owner' }),
      formatAuditLine({
        type: 'member.role',
        orgId: org,
        userId: 'usr_a',
        role: 'admin',
        by: 'usr_b',
      }),
      formatAuditLine({ type: 'member.remove', orgId: org, userId: 'usr_a', by: 'usr_a' }),
      formatAuditLine({
        type: 'invite.create',
        orgId: org,
        inviteId: invite,
        role: 'member',
        by: 'usr_b',
      }),
      formatAuditLine({ type: 'invite.accept', orgId: org, inviteId: invite, userId: 'usr_c' }),
      formatAuditLine({ type: 'invite.revoke', orgId: org, inviteId: invite, by: 'usr_b' }),
      formatAuditLine({
        type: 'invite.accept.denied',
        orgId: org,
        inviteId: invite,
        userId: 'usr_c',
        createdBy: 'usr_b',
        reason: 'maker_not_owner',
      }),
    ]).toEqual([
      `[audit] member.add org_id=${org} user_id=usr_a role=owner`,
      `[audit] member.role org_id=${org} user_id=usr_a role=admin by=usr_b`,
      `[audit] member.remove org_id=${org} user_id=usr_a by=usr_a`,
      `[audit] invite.create org_id=${org} invite_id=${invite} role=member by=usr_b`,
      `[audit] invite.accept org_id=${org} invite_id=${invite} user_id=usr_c`,
      `[audit] invite.revoke org_id=${org} invite_id=${invite} by=usr_b`,
      `[audit] invite.accept.denied org_id=${org} invite_id=${invite} user_id=usr_c created_by=usr_b reason=maker_not_owner`,
    ]);
  });

  it('writes session.create.denied with the invalid_service_token reason', () => {
    expect(formatAuditLine({ type: 'session.create.denied', remote: '10.0.0.7' })).toBe(
      '[audit] session.create.denied reason=invalid_service_token remote=10.0.0.7',
    );
  });

  it('writes auth.denied for a missing token', () => {
    expect(formatAuditLine(authDenied('/v1/executions'))).toBe(
      '[audit] auth.denied method=GET path=/v1/executions reason=missing_token remote=127.0.0.1',
    );
  });

  it('writes auth.denied for an invalid or expired token', () => {
    expect(
      formatAuditLine({
        type: 'auth.denied',
        method: 'DELETE',
        path: '/v1/tokens/0123456789abcdef0123456789abcdef',
        reason: 'invalid_or_expired_token',
        remote: '::1',
      }),
    ).toBe(
      '[audit] auth.denied method=DELETE path=/v1/tokens/0123456789abcdef0123456789abcdef reason=invalid_or_expired_token remote=::1',
    );
  });

  it('writes token.create with bracketed scopes and an empty agent type as ""', () => {
    expect(formatAuditLine(tokenCreate(''))).toBe(
      '[audit] token.create org_id=org_x token_id=abc scopes=[execute] agent_type=""',
    );
  });

  it('writes token.create with several scopes comma-separated, and no scope as []', () => {
    expect(formatAuditLine({ ...tokenCreate('ci'), scopes: ['execute', 'read'] })).toBe(
      '[audit] token.create org_id=org_x token_id=abc scopes=[execute,read] agent_type=ci',
    );
    expect(formatAuditLine({ ...tokenCreate('ci'), scopes: [] })).toBe(
      '[audit] token.create org_id=org_x token_id=abc scopes=[] agent_type=ci',
    );
  });

  it.each<[AuditEvent['type'], AuditEvent, string]>([
    ['session.delete', { type: 'session.delete', sessionId: 'ses_1' }, 'session_id=ses_1'],
    ['token.rotate', { type: 'token.rotate', oldId: 'aaa', newId: 'bbb' }, 'old_id=aaa new_id=bbb'],
    ['token.revoke', { type: 'token.revoke', tokenId: 'abc' }, 'token_id=abc'],
    ['token.rehash', { type: 'token.rehash', tokenId: 'abc' }, 'token_id=abc'],
  ])('writes %s', (type, event, fields) => {
    expect(formatAuditLine(event)).toBe(`[audit] ${type} ${fields}`);
  });
});

describe('formatAuditLine with hostile values', () => {
  it('drops the query string and fragment from the path', () => {
    expect(formatAuditLine(authDenied('/v1/executions?org=a&repo=b&token=secret'))).toBe(
      '[audit] auth.denied method=GET path=/v1/executions reason=missing_token remote=127.0.0.1',
    );
    expect(readLine(formatAuditLine(authDenied('/v1/x#frag?y'))).fields.path).toBe('/v1/x');
  });

  it('cannot be split into a second line by CR, LF or unicode line breaks in the path', () => {
    const path = '/v1/executions\r\n[audit] token.revoke token_id=forged\u2028\u2029\u0085x';
    const line = formatAuditLine(authDenied(path));
    expect(line).not.toMatch(/[\r\n\u2028\u2029\u0085]/);
    const { fields } = readLine(line);
    expect(Object.keys(fields)).toEqual(['method', 'path', 'reason', 'remote']);
    expect(decode(fields.path ?? '')).toBe(path);
  });

  it('cannot forge a token_id field through the agent type', () => {
    const line = formatAuditLine(tokenCreate(' token_id=forged'));
    expect(line).toBe(
      '[audit] token.create org_id=org_x token_id=abc scopes=[execute] agent_type="\\u0020token_id\\u003dforged"',
    );
    expect(line.match(/token_id=/g)).toHaveLength(1);
    expect(decode(readLine(line).fields.agent_type ?? '')).toBe(' token_id=forged');
  });

  it('cannot close the quotes early or forge scopes with quotes, backslashes and brackets', () => {
    const hostile = '" token_id=x\\" scopes=[admin],';
    const line = formatAuditLine({ ...tokenCreate(hostile), scopes: ['execute]', '[admin'] });
    const { fields } = readLine(line);
    expect(Object.keys(fields)).toEqual(['org_id', 'token_id', 'scopes', 'agent_type']);
    expect(fields.token_id).toBe('abc');
    expect(fields.scopes).toBe('["execute\\u005d","\\u005badmin"]');
    expect(decode(fields.agent_type ?? '')).toBe(hostile);
  });

  it('prints unicode as \\u escapes that decode back to the same text', () => {
    const agentType = 'Ünïcödé 🚀 агент';
    const line = formatAuditLine(tokenCreate(agentType));
    expect(line).toMatch(/^[\x20-\x7e]+$/);
    expect(decode(readLine(line).fields.agent_type ?? '')).toBe(agentType);
  });

  it('escapes terminal control sequences, NUL, DEL and lone surrogates', () => {
    const agentType = '\u001b[31mred\u0000\u007f\ud800';
    const line = formatAuditLine(tokenCreate(agentType));
    expect(line).toContain('agent_type="\\u001b\\u005b31mred\\u0000\\u007f\\ud800"');
    expect(decode(readLine(line).fields.agent_type ?? '')).toBe(agentType);
  });

  it('quotes an empty or bracketed remote address and a method with spaces', () => {
    const line = formatAuditLine({
      type: 'auth.denied',
      method: 'GET /admin',
      path: '/v1/tokens',
      reason: 'invalid_or_expired_token',
      remote: '',
    });
    expect(line).toBe(
      '[audit] auth.denied method="GET\\u0020/admin" path=/v1/tokens reason=invalid_or_expired_token remote=""',
    );
    expect(formatAuditLine({ type: 'session.create.denied', remote: '[::1]:443' })).toBe(
      '[audit] session.create.denied reason=invalid_service_token remote="\\u005b::1\\u005d:443"',
    );
  });

  it('redacts anything shaped like an API or session token', () => {
    const line = formatAuditLine(authDenied(`/v1/auth/${API_TOKEN}/x`));
    expect(line).toContain('path=/v1/auth/cvg_REDACTED/x');
    expect(line).not.toContain(API_TOKEN);
    const session = formatAuditLine(tokenCreate(`cli ${SESSION_TOKEN}`));
    expect(session).toContain('agent_type="cli\\u0020cvgs_REDACTED"');
    expect(session).not.toContain(SESSION_TOKEN.slice(5));
  });

  it('redacts anything shaped like a sign-in link or invite token', () => {
    const link = `cvgl_${'5e'.repeat(32)}`;
    const invite = `cvgi_${'6f'.repeat(32)}`;
    const line = formatAuditLine(authDenied(`/auth/link/${link}/${invite}`));
    expect(line).toContain('path=/auth/link/cvgl_REDACTED/cvgi_REDACTED');
    expect(line).not.toContain(link.slice(5));
    expect(line).not.toContain(invite.slice(5));
  });

  it('keeps token ids, which are not secrets, as they are', () => {
    const tokenId = '0123456789abcdef0123456789abcdef';
    expect(formatAuditLine({ type: 'token.revoke', tokenId })).toBe(
      `[audit] token.revoke token_id=${tokenId}`,
    );
  });

  it('keeps any string on one printable-ASCII line with exactly the pattern fields', () => {
    const anyCodeUnit = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c));
    const anyString = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.string({ unit: anyCodeUnit }),
      fc.string({ unit: fc.constantFrom(' ', '=', '"', '\\', '[', ']', ',', '\n', 'a') }),
    );
    fc.assert(
      fc.property(anyString, anyString, anyString, (method, path, agentType) => {
        fc.pre(![method, path, agentType].some((value) => value.includes('cvg')));
        const denied = readLine(
          formatAuditLine({
            type: 'auth.denied',
            method,
            path,
            reason: 'missing_token',
            remote: agentType,
          }),
        );
        expect(Object.keys(denied.fields)).toEqual(['method', 'path', 'reason', 'remote']);
        expect(decode(denied.fields.method ?? '')).toBe(method);
        expect(decode(denied.fields.path ?? '')).toBe(path.split(/[?#]/)[0]);
        expect(decode(denied.fields.remote ?? '')).toBe(agentType);

        const created = readLine(formatAuditLine(tokenCreate(agentType)));
        expect(Object.keys(created.fields)).toEqual(['org_id', 'token_id', 'scopes', 'agent_type']);
        expect(decode(created.fields.agent_type ?? '')).toBe(agentType);
      }),
    );
  });
});
