import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import {
  allowedOriginsOf,
  dashboardUrlOf,
  loopbackAliases,
  publicUrlOf,
} from '../src/reference-server.js';

describe('the reference server and its dashboard', () => {
  it('sends the browser to the dashboard it serves when DASHBOARD_URL is unset, and allows its origin', () => {
    const config = loadConfig({ PORT: '8181', ALLOWED_ORIGINS: 'https://ci.example.com' });
    expect(dashboardUrlOf(config)).toBe('http://localhost:8181/dashboard/');
    expect(allowedOriginsOf(config)).toEqual([
      'https://ci.example.com',
      'http://localhost:8181',
      'http://127.0.0.1:8181',
      'http://[::1]:8181',
    ]);
  });

  it('adds each default origin once', () => {
    const config = loadConfig({ ALLOWED_ORIGINS: 'http://127.0.0.1:8080' });
    expect(allowedOriginsOf(config)).toEqual([
      'http://127.0.0.1:8080',
      'http://localhost:8080',
      'http://[::1]:8080',
    ]);
  });

  it('allows only the exact default origin in production: no loopback aliases', () => {
    const config = loadConfig({
      NODE_ENV: 'production',
      SERVICE_TOKEN: 's'.repeat(32),
      SESSION_SECRET: 'x'.repeat(32),
      COVGATE_ALLOW_EMBEDDED_STORE: '1',
    });
    expect(allowedOriginsOf(config)).toEqual(['http://localhost:8080']);
  });

  it('names a loopback origin under localhost, 127.0.0.1 and [::1] with its scheme and port, any other alone', () => {
    expect(loopbackAliases('https://127.0.0.1')).toEqual([
      'https://localhost',
      'https://127.0.0.1',
      'https://[::1]',
    ]);
    expect(loopbackAliases('http://[::1]:9000')).toEqual([
      'http://localhost:9000',
      'http://127.0.0.1:9000',
      'http://[::1]:9000',
    ]);
    expect(loopbackAliases('http://192.168.1.5:8080')).toEqual(['http://192.168.1.5:8080']);
    expect(loopbackAliases('http://localhost.example.com')).toEqual([
      'http://localhost.example.com',
    ]);
  });

  it('starts the default URLs with PUBLIC_URL and allows its origin', () => {
    const config = loadConfig({ PUBLIC_URL: 'https://cov.example.com/' });
    expect(publicUrlOf(config)).toBe('https://cov.example.com');
    expect(dashboardUrlOf(config)).toBe('https://cov.example.com/dashboard/');
    expect(allowedOriginsOf(config)).toEqual(['https://cov.example.com']);
    expect(publicUrlOf(loadConfig({ PORT: '9090' }))).toBe('http://localhost:9090');
  });

  it('refuses a PUBLIC_URL that is not an http(s) origin', () => {
    for (const value of [
      'cov.example.com',
      'ftp://cov.example.com',
      'https://cov.example.com/covgate',
    ]) {
      expect(() => loadConfig({ PUBLIC_URL: value }), value).toThrow(
        'refusing to start:\n  - PUBLIC_URL must be an http(s) origin such as https://covgate.example.com (no path)',
      );
    }
  });

  it('adds nothing when DASHBOARD_URL is set: its owner sets ALLOWED_ORIGINS', () => {
    const config = loadConfig({ DASHBOARD_URL: 'https://cov.example.com/dashboard/' });
    expect(dashboardUrlOf(config)).toBe('https://cov.example.com/dashboard/');
    expect(allowedOriginsOf(config)).toEqual([]);
  });
});
