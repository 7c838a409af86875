import { describe, expect, it } from 'vitest';
import { DEVELOPMENT_SERVICE_TOKEN, readSettings, SettingsError } from '../src/settings.js';

const random = () => 'r'.repeat(64);
const strong = 's'.repeat(32);

describe('readSettings', () => {
  it('falls back to marked development values outside production', () => {
    const settings = readSettings({}, random);
    expect(settings).toMatchObject({
      host: '127.0.0.1',
      port: 3000,
      production: false,
      sessionSecret: 'r'.repeat(64),
      serviceToken: DEVELOPMENT_SERVICE_TOKEN,
      developmentFallbacks: ['SESSION_SECRET', 'SERVICE_TOKEN'],
    });
  });

  it('uses the secrets it is given and reports no fallback', () => {
    const settings = readSettings(
      { SESSION_SECRET: 'session', SERVICE_TOKEN: 'service', PORT: '8081', HOST: '0.0.0.0' },
      random,
    );
    expect(settings).toMatchObject({
      host: '0.0.0.0',
      port: 8081,
      sessionSecret: 'session',
      serviceToken: 'service',
      developmentFallbacks: [],
    });
  });

  it.each([
    ['SESSION_SECRET', { SERVICE_TOKEN: strong }],
    ['SERVICE_TOKEN', { SESSION_SECRET: strong }],
    ['SESSION_SECRET', { SESSION_SECRET: 's'.repeat(31), SERVICE_TOKEN: strong }],
    ['SERVICE_TOKEN', { SESSION_SECRET: strong, SERVICE_TOKEN: 's'.repeat(31) }],
  ])('refuses to start in production without a strong %s, naming only the setting', (name, env) => {
    const read = () => readSettings({ NODE_ENV: 'production', ...env }, random);
    expect(read).toThrow(SettingsError);
    expect(read).toThrow(new RegExp(`^${name} must be set`));
    expect(read).not.toThrow(/sss/);
  });

  it('starts in production with both secrets of 32 characters', () => {
    const settings = readSettings(
      { NODE_ENV: 'production', SESSION_SECRET: strong, SERVICE_TOKEN: `${strong}x` },
      random,
    );
    expect(settings).toMatchObject({ production: true, developmentFallbacks: [] });
  });

  it.each(['-1', '65536', '80a', '1e3', ' 80', '٣٠٠٠'])('refuses PORT=%s', (port) => {
    expect(() => readSettings({ PORT: port }, random)).toThrow('PORT must be a number 0-65535');
  });

  it('keeps webhook secrets unset when they are empty', () => {
    const settings = readSettings(
      { PROVIDER_B_WEBHOOK_SECRET: '', PROVIDER_A_WEBHOOK_SECRET: 'a' },
      random,
    );
    expect(settings.providerBWebhookSecret).toBeUndefined();
    expect(settings.providerAWebhookSecret).toBe('a');
  });
});
