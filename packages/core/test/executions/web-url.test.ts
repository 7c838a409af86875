import { describe, expect, it } from 'vitest';
import { normaliseWebUrl } from '../../src/executions/web-url.js';

describe('normaliseWebUrl', () => {
  it('keeps http(s) URLs of a repository, normalised, without a trailing slash', () => {
    expect(normaliseWebUrl('https://github.com/acme/api')).toBe('https://github.com/acme/api');
    expect(normaliseWebUrl('HTTPS://GitHub.com/acme/api/')).toBe('https://github.com/acme/api');
    expect(normaliseWebUrl('http://gitlab.internal:8080/group/sub/api')).toBe(
      'http://gitlab.internal:8080/group/sub/api',
    );
    expect(normaliseWebUrl('https://git.example.com/ä/api')).toBe(
      'https://git.example.com/%C3%A4/api',
    );
  });

  it('refuses other schemes, credentials, queries, fragments and long URLs', () => {
    for (const value of [
      'ftp://github.com/acme/api',
      'javascript:alert(1)',
      'github.com/acme/api',
      '',
      'https://user@github.com/acme/api',
      'https://user:secret@github.com/acme/api',
      'https://github.com/acme/api?tab=readme',
      'https://github.com/acme/api?',
      'https://github.com/acme/api#readme',
      'https://github.com/acme/api#',
      `https://github.com/${'a'.repeat(500)}`,
    ]) {
      expect(normaliseWebUrl(value), value).toBeNull();
    }
    expect(normaliseWebUrl(`https://github.com/${'a'.repeat(493)}`)).toHaveLength(512);
  });
});
