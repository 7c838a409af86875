import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { adminPublicUrl, recordPublicUrl } from '../src/recorded-public-url.js';

describe('the public URL covgate-admin builds links on', () => {
  let dataDir: string;
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'covgate-public-url-'));
  });
  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });
  const file = () => join(dataDir, 'public-url');

  it('is the server’s, recorded at its start, when the admin’s environment has no PUBLIC_URL', async () => {
    const server = loadConfig({ PORT: '9191', COVGATE_DATA_DIR: dataDir });
    expect(await recordPublicUrl(server)).toBe(file());
    expect(await readFile(file(), 'utf8')).toBe('http://localhost:9191\n');
    expect((await stat(file())).mode & 0o777).toBe(0o644);

    const admin = loadConfig({ COVGATE_DATA_DIR: dataDir });
    expect(await adminPublicUrl(admin)).toEqual({
      url: 'http://localhost:9191',
      source: `recorded by the server at its start in ${file()}`,
    });
    await recordPublicUrl(
      loadConfig({ PUBLIC_URL: 'https://covgate.example.com/', COVGATE_DATA_DIR: dataDir }),
    );
    expect((await adminPublicUrl(admin)).url).toBe('https://covgate.example.com');
  });

  it('is PUBLIC_URL of the admin’s own environment first', async () => {
    await writeFile(file(), 'http://localhost:9191\n');
    const admin = loadConfig({ PUBLIC_URL: 'https://ci.example.org', COVGATE_DATA_DIR: dataDir });
    expect(await adminPublicUrl(admin)).toEqual({
      url: 'https://ci.example.org',
      source: 'PUBLIC_URL of this environment',
    });
  });

  it('falls back to localhost and PORT, saying so, without a record or with one that is not an origin', async () => {
    const admin = loadConfig({ PORT: '8181', COVGATE_DATA_DIR: dataDir });
    const fallback = {
      url: 'http://localhost:8181',
      source: `PUBLIC_URL is unset and no server has recorded its address in ${file()}: start the server first, or set PUBLIC_URL`,
    };
    expect(await adminPublicUrl(admin)).toEqual(fallback);
    await writeFile(file(), 'javascript:alert(1)\n');
    expect(await adminPublicUrl(admin)).toEqual(fallback);
  });

  it('is not recorded where there is no data folder (a server whose secrets all come from its environment)', async () => {
    const missing = join(dataDir, 'absent');
    expect(await recordPublicUrl(loadConfig({ COVGATE_DATA_DIR: missing }))).toBeNull();
  });
});
