import { createTestApi } from '@covgate/testing';
import { describe, expect, it } from 'vitest';

const TOKEN = 'github_pat_11AAAAAAA0unitTokenValue_4321abcd';
const REFUSED = {
  error: 'invalid parameter: api_url is or resolves to a loopback, private or link-local address',
};

/** An admin's link request with a resolver that knows a few names (the system's is never asked). */
async function linking(options: Parameters<typeof createTestApi>[0] = {}) {
  const asked: string[] = [];
  const t = createTestApi({
    resolveHost: async (hostname: string) => {
      asked.push(hostname);
      const table: Record<string, string[]> = {
        'ghe.internal.example': ['10.0.0.7'],
        'metadata.example': ['169.254.169.254'],
        'rebind.example': ['140.82.112.6', '127.0.0.1'],
        'ghe.example.com': ['140.82.112.6', '2606:50c0:8000::154'],
      };
      const addresses = table[hostname];
      if (!addresses) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
      return addresses;
    },
    ...options,
  });
  const org = await t.createOrganisation('team');
  const { token: session } = await t.createSession(org, 'usr_admin');
  const link = (apiUrl: string) =>
    t.request(`/v1/repos/github-link?org=${org.slug}&repo=web`, {
      method: 'POST',
      headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json' },
      body: JSON.stringify({ github_repo: 'acme/web', token: TOKEN, api_url: apiUrl }),
    });
  return { t, org, link, asked };
}

describe('a repository link whose api_url points inside the network', () => {
  it('is refused with 400 for loopback, link-local, private and unspecified hosts in every spelling', async () => {
    const { t, org, link } = await linking();
    const urls = [
      'https://127.0.0.1:8443/api/v3',
      'https://[::1]/api/v3',
      'https://169.254.169.254/latest/meta-data',
      'https://10.1.2.3/api/v3',
      'https://192.168.0.10/api/v3',
      'https://100.64.0.1/api/v3',
      'https://0.0.0.0/api/v3',
      'https://[fd00::1]/api/v3',
      'https://[fe80::1]/api/v3',
      'https://2130706433/api/v3',
      'https://0177.0.0.1/api/v3',
      'https://0x7f.0.0.1/api/v3',
      'https://0x7f000001/api/v3',
      'https://[::ffff:127.0.0.1]/api/v3',
      'https://[::ffff:169.254.169.254]/api/v3',
      'https://localhost/api/v3',
      'https://localhost./api/v3',
      'https://api.localhost/api/v3',
      'https://ghe.internal.example/api/v3',
      'https://metadata.example/latest',
      'https://rebind.example/api/v3',
    ];
    for (const url of urls) {
      const response = await link(url);
      expect([url, response.status, await response.json()]).toEqual([url, 400, REFUSED]);
    }
    expect(await t.store.findRepositoryLink(org.id, 'web')).toBeNull();
    expect(t.audit.lines.filter((line) => line.includes('repository.link'))).toEqual([]);
  });

  it('is stored for a public host, and for a name that does not resolve (checked again at each connection)', async () => {
    const { t, org, link } = await linking();
    const resolved = await link('https://ghe.example.com/api/v3');
    expect(resolved.status).toBe(200);
    expect((await resolved.json()).api_url).toBe('https://ghe.example.com/api/v3');
    const unknown = await link('https://nowhere.example/api/v3');
    expect(unknown.status).toBe(200);
    expect((await t.store.findRepositoryLink(org.id, 'web'))?.apiUrl).toBe(
      'https://nowhere.example/api/v3',
    );
  });

  it('asks nothing of the resolver for an IP literal or a localhost name', async () => {
    const { link, asked } = await linking();
    await link('https://127.0.0.1/api/v3');
    await link('https://localhost./api/v3');
    await link('https://ghe.internal.example/api/v3');
    expect(asked).toEqual(['ghe.internal.example']);
  });

  it('is stored when the operator allows private code hosts, all of them or the listed ranges', async () => {
    const all = await linking({ allowPrivateCodeHosts: true });
    expect((await all.link('https://127.0.0.1:8443/api/v3')).status).toBe(200);
    const listed = await linking({ allowPrivateCodeHosts: '10.0.0.0/24' });
    expect((await listed.link('https://ghe.internal.example/api/v3')).status).toBe(200);
    const refused = await listed.link('https://192.168.0.10/api/v3');
    expect([refused.status, await refused.json()]).toEqual([400, REFUSED]);
  });

  it('refuses an allowance entry that is not an address or a range when the API is created', () => {
    expect(() => createTestApi({ allowPrivateCodeHosts: 'ghe.internal' })).toThrow(
      'ALLOW_PRIVATE_CODE_HOSTS: "ghe.internal" is not an IP address or CIDR range',
    );
  });
});
