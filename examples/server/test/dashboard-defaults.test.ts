import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { allowedOriginsOf, dashboardUrlOf } from '../src/reference-server.js';

describe('the reference server and its dashboard', () => {
  it('sends the browser to the dashboard it serves when DASHBOARD_URL is unset, and allows its origin', () => {
    const config = loadConfig({ PORT: '8181', ALLOWED_ORIGINS: 'https://ci.example.com' });
    expect(dashboardUrlOf(config)).toBe('http://localhost:8181/dashboard/');
    expect(allowedOriginsOf(config)).toEqual(['https://ci.example.com', 'http://localhost:8181']);
  });

  it('adds the default origin once', () => {
    const config = loadConfig({ ALLOWED_ORIGINS: 'http://localhost:8080' });
    expect(allowedOriginsOf(config)).toEqual(['http://localhost:8080']);
  });

  it('adds nothing when DASHBOARD_URL is set: its owner sets ALLOWED_ORIGINS', () => {
    const config = loadConfig({ DASHBOARD_URL: 'https://cov.example.com/dashboard/' });
    expect(dashboardUrlOf(config)).toBe('https://cov.example.com/dashboard/');
    expect(allowedOriginsOf(config)).toEqual([]);
  });
});
