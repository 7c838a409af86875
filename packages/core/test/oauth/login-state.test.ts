import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  createLoginState,
  loginStateKey,
  openLoginState,
  sealLoginState,
  stateFingerprint,
  statesMatch,
} from '../../src/oauth/login-state.js';

const SECRET = 'session-secret-for-login-state-tests-0123';
// Made inside each test: a failure while a file is collected would count as no test at all.
const key = () => loginStateKey(SECRET);

/** The documented format, computed here independently: HMAC-SHA-256 under a derived key. */
const DERIVED_KEY = createHmac('sha256', SECRET).update('covgate oauth login state v1').digest();
const macOf = (codeHost: string, body: string) =>
  createHmac('sha256', DERIVED_KEY).update(`${codeHost}\n${body}`).digest('base64url');
const T0 = new Date('2026-03-01T12:00:00Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

/** Deterministic "random" bytes: each call returns `size` copies of the next counter value. */
function countingBytes() {
  let next = 1;
  return (size: number) => new Uint8Array(size).fill(next++);
}

describe('createLoginState', () => {
  it('draws a 32-byte state and a 32-byte verifier, base64url, and records the second', () => {
    const login = createLoginState(countingBytes(), new Date(T0.getTime() + 999));
    expect(login.state).toBe(Buffer.alloc(32, 1).toString('base64url'));
    expect(login.codeVerifier).toBe(Buffer.alloc(32, 2).toString('base64url'));
    expect(login.state).toHaveLength(43);
    expect(login.issuedAt).toBe(T0.getTime() / 1000);
  });
});

describe('sealLoginState and openLoginState', () => {
  const login = () => createLoginState(countingBytes(), T0);
  const sealed = () => sealLoginState(login(), 'github', key());

  it('round-trips a sealed state for the same code host and key', () => {
    expect(openLoginState(sealed(), 'github', key(), T0)).toEqual(login());
  });

  it('accepts a state exactly 600 s old and refuses one 601 s old', () => {
    expect(openLoginState(sealed(), 'github', key(), at(600))).toEqual(login());
    expect(openLoginState(sealed(), 'github', key(), at(601))).toBeNull();
  });

  it('tolerates 60 s of clock skew into the future and no more', () => {
    expect(openLoginState(sealed(), 'github', key(), at(-60))).toEqual(login());
    expect(openLoginState(sealed(), 'github', key(), at(-61))).toBeNull();
  });

  it('refuses a state sealed for another code host or with another key', () => {
    expect(openLoginState(sealed(), 'gitlab', key(), T0)).toBeNull();
    expect(openLoginState(sealed(), 'github', loginStateKey('another-secret'), T0)).toBeNull();
  });

  it('refuses any altered part, a non-canonical spelling and malformed values', () => {
    const [state, verifier, issued, mac] = sealed().split('.') as [string, string, string, string];
    const swapLast = (text: string) => `${text.slice(0, -1)}${text.endsWith('A') ? 'B' : 'A'}`;
    const refused = [
      [swapLast(state), verifier, issued, mac],
      [state, swapLast(verifier), issued, mac],
      [state, verifier, String(Number(issued) + 1), mac],
      [state, verifier, `0${issued}`, mac],
      [state, verifier, `+${issued}`, mac],
      [state, verifier, `${issued}.0`, mac],
      [state, verifier, issued, swapLast(mac)],
      [state, verifier, issued, mac.toUpperCase()],
      [verifier, state, issued, mac],
      [state, verifier, issued],
      [state, verifier, issued, mac, ''],
      [`${state}=`, verifier, issued, mac],
      ['é'.repeat(43), verifier, issued, mac],
      [''],
    ];
    for (const parts of refused) {
      expect(openLoginState(parts.join('.'), 'github', key(), T0)).toBeNull();
    }
  });

  it('refuses the last MAC character spelled with different unused bits', () => {
    const [state, verifier, issued, mac] = sealed().split('.') as [string, string, string, string];
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(mac.at(-1)!);
    // 43 characters carry 258 bits for 256: the last character's two low bits are unused.
    const twin = `${mac.slice(0, -1)}${alphabet[last ^ 1]}`;
    expect(Buffer.from(twin, 'base64url')).toEqual(Buffer.from(mac, 'base64url'));
    expect(
      openLoginState([state, verifier, issued, twin].join('.'), 'github', key(), T0),
    ).toBeNull();
  });
});

describe('statesMatch', () => {
  it('is true only for the identical string', () => {
    expect(statesMatch('abc', 'abc')).toBe(true);
    for (const other of ['abd', 'ABC', 'abc ', '', 'ab', 'abcd', 'åbc', 'abc\u0000']) {
      expect(statesMatch('abc', other)).toBe(false);
    }
  });
});

describe('stateFingerprint', () => {
  it('is a SHA-256 hex digest that differs between states and never contains the state', () => {
    const state = 'x'.repeat(43);
    expect(stateFingerprint(state)).toMatch(/^[0-9a-f]{64}$/);
    expect(stateFingerprint(state)).not.toBe(stateFingerprint('y'.repeat(43)));
    expect(stateFingerprint(state)).not.toContain(state);
  });
});

describe('the sealed format', () => {
  const login = () => createLoginState(countingBytes(), T0);

  it('is <state>.<verifier>.<seconds>.<HMAC-SHA-256 base64url>, stable across versions', () => {
    // Another instance, or the next release, must open what this one sealed.
    expect(key()).toEqual(DERIVED_KEY);
    const body = `${Buffer.alloc(32, 1).toString('base64url')}.${Buffer.alloc(32, 2).toString('base64url')}.${T0.getTime() / 1000}`;
    expect(sealLoginState(login(), 'github', key())).toBe(`${body}.${macOf('github', body)}`);
  });

  it('refuses a correctly authenticated value whose parts are not the shapes it makes', () => {
    const state = Buffer.alloc(32, 1).toString('base64url');
    const verifier = Buffer.alloc(32, 2).toString('base64url');
    const issued = String(T0.getTime() / 1000);
    const malformed = [
      [`!${state}`, verifier, issued],
      [`${state}!`, verifier, issued],
      [state.slice(1), verifier, issued],
      [state, `!${verifier}`, issued],
      [state, `${verifier}!`, issued],
      [state, verifier, `x${issued}`],
      [state, verifier, `${issued}x`],
    ];
    for (const [s, v, i] of malformed) {
      const body = `${s}.${v}.${i}`;
      expect(
        openLoginState(`${body}.${macOf('github', body)}`, 'github', key(), T0),
        body,
      ).toBeNull();
    }
  });

  it('refuses a MAC of the wrong length, or with characters around it, without throwing', () => {
    const sealed = sealLoginState(login(), 'github', key());
    const mac = sealed.split('.')[3]!;
    const body = sealed.slice(0, -mac.length - 1);
    for (const wrong of [mac.slice(1), `${mac}A`, `!${mac}`, `${mac}!`, '']) {
      expect(() => openLoginState(`${body}.${wrong}`, 'github', key(), T0)).not.toThrow();
      expect(openLoginState(`${body}.${wrong}`, 'github', key(), T0), wrong).toBeNull();
    }
  });

  it('fingerprints a state as the hex SHA-256 of its UTF-8 bytes', () => {
    for (const state of ['x'.repeat(43), 'é']) {
      expect(stateFingerprint(state)).toBe(
        createHash('sha256').update(Buffer.from(state, 'utf8')).digest('hex'),
      );
    }
  });
});
