import { describe, expect, it } from 'vitest';
import { originRefusal } from '../../../src/http/auth/csrf.js';

describe('the CSRF refusal names the refused origin', () => {
  it('repeats an origin of up to 200 characters whole and cuts a longer one', () => {
    const at200 = `https://${'a'.repeat(189)}.io`;
    expect(at200).toHaveLength(200);
    expect(originRefusal(at200)).toBe(`origin ${at200} is not allowed: add it to ALLOWED_ORIGINS`);
    const at201 = `https://${'a'.repeat(190)}.io`;
    expect(originRefusal(at201)).toBe(
      `origin ${at201.slice(0, 200)}... is not allowed: add it to ALLOWED_ORIGINS`,
    );
  });

  it('says what to do with a missing origin and with one that could never be listed', () => {
    expect(originRefusal(null)).toBe(
      'missing Origin header: a write with a session cookie needs an origin listed in ALLOWED_ORIGINS',
    );
    expect(originRefusal('null')).toBe(
      'origin null is not allowed: only origins listed in ALLOWED_ORIGINS may write with a session cookie',
    );
  });
});
