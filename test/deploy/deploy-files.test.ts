import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Deployment } from 'kubernetes-models/apps/v1';
import { Secret, Service } from 'kubernetes-models/v1';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { loadConfig } from '../../examples/server/src/config.js';

// The deployment files (Dockerfile, compose, Kubernetes, systemd) checked without a container
// runtime: what a user copies must parse, follow its schema, probe the right health routes and
// pass the server's own production checklist. .ci/container builds and runs the image itself.

const repo = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(join(repo, path), 'utf8');
const has = (command: string) => spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;

/** Dockerfile instructions, continuation lines joined, comments dropped. */
function instructions(): { keyword: string; args: string }[] {
  return read('Dockerfile')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const [keyword = '', ...rest] = line.split(/\s+/);
      return { keyword: keyword.toUpperCase(), args: rest.join(' ') };
    });
}
const all = (keyword: string) =>
  instructions()
    .filter((i) => i.keyword === keyword)
    .map((i) => i.args);

/** The environment the image sets (`ENV a=b c=d` lines). */
function imageEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const args of all('ENV')) {
    for (const match of args.matchAll(/([A-Z_]+)=(\S+)/g))
      env[match[1] as string] = match[2] as string;
  }
  return env;
}

describe('Dockerfile', () => {
  it('takes its Node.js base as NODE_IMAGE, by default the current LTS slim image, in every stage', () => {
    expect(all('ARG')).toContain('NODE_IMAGE=node:24-bookworm-slim');
    const froms = all('FROM');
    expect(froms.length).toBeGreaterThanOrEqual(2);
    for (const from of froms) expect(from).toMatch(/^\$\{NODE_IMAGE\}( AS \w+)?$/);
  });

  it('installs the packed tarballs without dev dependencies, in a stage of its own', () => {
    const install = all('RUN').find((run) => run.includes('npm install')) as string;
    expect(install).toContain('--omit=dev');
    expect(install).toContain('/tmp/packages/*.tgz');
    expect(all('COPY')).toContain('--from=install /opt/covgate /opt/covgate');
    expect(read('.dockerignore')).toContain('!deploy/container/packages/*.tgz');
  });

  it('runs node as PID 1 as a non-root user, with /data as its volume and a readiness health check', () => {
    expect(all('USER')).toEqual(['10001:10001']);
    expect(all('VOLUME')).toEqual(['["/data"]']);
    expect(all('EXPOSE')).toEqual(['8080']);
    expect(all('HEALTHCHECK').join()).toContain('/health/ready');
    expect(all('STOPSIGNAL')).toEqual(['SIGTERM']);
    const entrypoint = JSON.parse(all('ENTRYPOINT')[0] as string) as string[];
    expect(entrypoint[0]).toBe('node');
    expect(imageEnv()).toMatchObject({
      NODE_ENV: 'production',
      HOST: '0.0.0.0',
      COVGATE_DATA_DIR: '/data',
    });
  });
});

describe('Kubernetes example (deploy/kubernetes/covgate.yaml)', () => {
  const documents = parseAllDocuments(read('deploy/kubernetes/covgate.yaml')).map(
    (document) => document.toJS() as { kind: string },
  );
  const ofKind = <T>(kind: string) => documents.find((d) => d.kind === kind) as T;

  it('holds a Secret, a Deployment and a Service, each valid against the Kubernetes schema', () => {
    expect(documents.map((d) => d.kind)).toEqual(['Secret', 'Deployment', 'Service']);
    // kubernetes-models validates with the API's own OpenAPI schemas (throws on any error).
    expect(() => new Secret(ofKind('Secret')).validate()).not.toThrow();
    expect(() => new Deployment(ofKind('Deployment')).validate()).not.toThrow();
    expect(() => new Service(ofKind('Service')).validate()).not.toThrow();
    const broken = structuredClone(ofKind<Deployment>('Deployment'));
    (broken.spec?.template.spec?.containers[0] as { ports: unknown }).ports = [
      { containerPort: 'x' },
    ];
    expect(() => new Deployment(broken).validate()).toThrow(/containerPort/);
  });

  it('probes readiness on /health/ready and liveness on /health, on the image port, as the image user', () => {
    const deployment = new Deployment(ofKind('Deployment'));
    const pod = deployment.spec?.template.spec;
    const container = pod?.containers[0];
    expect(container?.readinessProbe?.httpGet?.path).toBe('/health/ready');
    expect(container?.livenessProbe?.httpGet?.path).toBe('/health');
    expect(container?.ports?.[0]).toEqual({ name: 'http', containerPort: 8080 });
    expect(pod?.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 10001 });
    expect(container?.securityContext).toMatchObject({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
    });
    expect(deployment.spec?.selector.matchLabels).toEqual(
      deployment.spec?.template.metadata?.labels,
    );
    const service = new Service(ofKind('Service'));
    expect(service.spec?.selector).toEqual(deployment.spec?.selector.matchLabels);
    expect(service.spec?.ports?.[0]?.targetPort).toBe('http');
  });

  it('passes the production checklist with the Secret, the Deployment env and the image env', () => {
    const secret = ofKind<{ stringData: Record<string, string> }>('Secret').stringData;
    const container = new Deployment(ofKind('Deployment')).spec?.template.spec?.containers[0];
    const env = Object.fromEntries((container?.env ?? []).map((e) => [e.name, e.value]));
    expect(container?.envFrom?.[0]?.secretRef?.name).toBe('covgate');
    const config = loadConfig({ ...imageEnv(), ...secret, ...env });
    expect(config.production).toBe(true);
    expect(config.databaseUrl).toMatch(/^mysql:\/\//);
    expect(config.redisUrl).toMatch(/^redis:\/\//);
  });
});

describe('compose file (deploy/compose.yaml)', () => {
  const compose = parse(read('deploy/compose.yaml')) as {
    services: Record<string, { environment?: Record<string, string>; depends_on?: unknown }>;
  };

  it('runs the server beside MariaDB and Redis, started once both are healthy', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['covgate', 'mariadb', 'redis']);
    expect(compose.services.covgate?.depends_on).toEqual({
      mariadb: { condition: 'service_healthy' },
      redis: { condition: 'service_healthy' },
    });
  });

  it('passes the production checklist once its variables are given', () => {
    const secret = 'a'.repeat(64);
    const given: Record<string, string> = {
      SERVICE_TOKEN: secret,
      SESSION_SECRET: secret,
      TOKEN_PEPPER: secret,
      MARIADB_PASSWORD: 'password',
    };
    // Compose's ${NAME:?message} and ${NAME:-default}, as docker-compose interpolates them.
    const interpolate = (value: string) =>
      value.replace(/\$\{(\w+)(?::[?-]([^}]*))?\}/g, (_all, name: string, fallback = '') =>
        name in given ? (given[name] as string) : fallback,
      );
    const env = Object.fromEntries(
      Object.entries(compose.services.covgate?.environment ?? {}).map(([k, v]) => [
        k,
        interpolate(v),
      ]),
    );
    const config = loadConfig({ ...imageEnv(), ...env });
    expect(config.databaseUrl).toBe(
      'mysql://covgate:password@mariadb:3306/covgate?sslmode=require',
    );
    expect(config.redisUrl).toBe('redis://redis:6379');
  });

  it.skipIf(!has('docker-compose'))(
    'is valid for docker-compose, and refuses to start without its secrets',
    () => {
      const file = join(repo, 'deploy/compose.yaml');
      const without = spawnSync('docker-compose', ['-f', file, 'config', '-q'], {
        encoding: 'utf8',
        env: { PATH: process.env.PATH },
      });
      expect(without.status).not.toBe(0);
      expect(without.stderr).toMatch(
        /set (MARIADB_PASSWORD|SERVICE_TOKEN|SESSION_SECRET|TOKEN_PEPPER)/,
      );
      const secrets = {
        SERVICE_TOKEN: 'x',
        SESSION_SECRET: 'x',
        TOKEN_PEPPER: 'x',
        MARIADB_PASSWORD: 'x',
      };
      execFileSync('docker-compose', ['-f', file, 'config', '-q'], {
        env: { PATH: process.env.PATH, ...secrets },
      });
    },
  );
});

describe('systemd unit (deploy/systemd/covgate.service)', () => {
  it.skipIf(!has('systemd-analyze') && process.env.CI !== '1')(
    'passes systemd-analyze verify with its hardening on (exposure at most 2.0)',
    () => {
      const result = spawnSync(join(repo, 'deploy/systemd/verify.sh'), { encoding: 'utf8' });
      expect(result.stderr).toBe('');
      expect(result.status).toBe(0);
    },
  );

  it('starts covgate-server in production with its data in the state directory', () => {
    const unit = read('deploy/systemd/covgate.service');
    expect(unit).toMatch(/^ExecStart=\/usr\/bin\/env covgate-server$/m);
    expect(unit).toMatch(
      /^Environment=NODE_ENV=production .*COVGATE_DATA_DIR=\/var\/lib\/covgate$/m,
    );
    expect(unit).toMatch(/^StateDirectory=covgate$/m);
    expect(unit).toMatch(/^EnvironmentFile=\/etc\/covgate\/covgate\.env$/m);
  });
});
