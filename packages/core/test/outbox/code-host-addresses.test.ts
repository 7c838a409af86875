import {
  createManualClock,
  createMemoryStore,
  type RepositoryLink,
  type Store,
} from '@covgate/core';
import {
  buildExecution,
  buildOrganisation,
  type FakeGithubRest,
  newPrefixedId,
  startFakeGithubRest,
} from '@covgate/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HostResolver } from '../../src/code-hosts/code-host-address.js';
import { createFeedbackSender } from '../../src/outbox/feedback-sender.js';
import { createOutboxDispatcher } from '../../src/outbox/outbox-worker.js';
import { planRunDeliveries } from '../../src/outbox/run-feedback.js';

const START = new Date('2026-03-01T12:00:00Z');
const TOKEN = 'github_pat_0123456789abcdefSECRET';
const GITHUB_REPO = 'octo/widgets';
const STATUS = {
  host: 'github' as const,
  repository: GITHUB_REPO,
  sha: 'a'.repeat(40),
  state: 'success' as const,
  context: 'covgate/project',
  description: '84.13% (+0.25)',
  target_url: null,
};

let fake: FakeGithubRest;
let store: Store;
let orgId: string;
let logLines: string[];

beforeEach(async () => {
  fake = await startFakeGithubRest();
  fake.allowToken(TOKEN, [GITHUB_REPO]);
  store = createMemoryStore();
  logLines = [];
  const org = buildOrganisation();
  orgId = org.id;
  await store.createOrganisation(org);
});

afterEach(async () => {
  await fake.close();
  await store.close();
});

/** The fake GitHub under a host name only `resolve` knows, pointing at its loopback address. */
function namedFake(): { apiUrl: string; resolve: HostResolver } {
  const url = new URL(fake.apiUrl);
  url.hostname = 'ghe.covgate.test';
  return {
    apiUrl: url.href.replace(/\/+$/, ''),
    resolve: async (hostname) => (hostname === 'ghe.covgate.test' ? ['127.0.0.1'] : []),
  };
}

describe('the GitHub sender, towards a code host inside the network', () => {
  it('refuses a loopback api_url before any request, naming the host and why', async () => {
    const sender = createFeedbackSender({ requestTimeoutMs: 2_000 });
    const result = await sender.setStatus({ apiUrl: fake.apiUrl, token: TOKEN }, STATUS);
    expect(result).toEqual({
      ok: false,
      answer: {
        status: null,
        headers: {},
        message:
          'address refused: 127.0.0.1 is or resolves to a loopback address (refused unless ALLOW_PRIVATE_CODE_HOSTS allows it)',
      },
    });
    expect(fake.requests).toEqual([]);
  });

  it('refuses a name that resolves to loopback, and sends through it when the operator allows it', async () => {
    const { apiUrl, resolve } = namedFake();
    const strict = createFeedbackSender({ requestTimeoutMs: 2_000, resolveHost: resolve });
    const refused = await strict.setStatus({ apiUrl, token: TOKEN }, STATUS);
    expect(refused).toMatchObject({
      ok: false,
      answer: {
        status: null,
        message:
          'address refused: ghe.covgate.test is or resolves to a loopback address (refused unless ALLOW_PRIVATE_CODE_HOSTS allows it)',
      },
    });
    expect(fake.requests).toEqual([]);
    const allowing = createFeedbackSender({
      requestTimeoutMs: 2_000,
      resolveHost: resolve,
      allowPrivateCodeHosts: '127.0.0.1',
    });
    expect(await allowing.setStatus({ apiUrl, token: TOKEN }, STATUS)).toEqual({
      ok: true,
      detail: 'status set',
    });
    expect(fake.requests).toEqual([`POST /api/v3/repos/${GITHUB_REPO}/statuses/${'a'.repeat(40)}`]);
  });
});

describe('the outbox worker, with a link stored before the check existed', () => {
  it('sends nothing to a loopback api_url: the delivery waits with the reason, the token unused', async () => {
    const link: RepositoryLink = {
      orgId,
      repo: 'web',
      host: 'github',
      repository: GITHUB_REPO,
      apiUrl: fake.apiUrl,
      credential: `sealed:${TOKEN}`,
      credentialHint: '…CRET',
      createdBy: newPrefixedId('usr_'),
      createdAt: START,
      updatedAt: START,
    };
    await store.putRepositoryLink(link);
    const run = buildExecution({
      orgId,
      repo: 'web',
      branch: 'main',
      commit: 'a'.repeat(40),
      createdAt: START,
    });
    await store.insertExecution(
      run,
      null,
      planRunDeliveries(run, {
        host: 'github',
        repository: GITHUB_REPO,
        runUrl: 'https://covgate.example.com/run',
        newId: () => newPrefixedId('dlv_'),
      }),
    );
    const dispatcher = createOutboxDispatcher({
      store,
      logger: {
        info: (line) => logLines.push(`info ${line}`),
        warn: (line) => logLines.push(`warn ${line}`),
        error: (line) => logLines.push(`error ${line}`),
      },
      decryptCredential: (stored) => stored.credential.replace('sealed:', ''),
      clock: createManualClock(START),
      random: () => 0.5,
      requestTimeoutMs: 2_000,
    });

    expect(await dispatcher.runOnce()).toBe(1);

    const [delivery] = await store.listRunDeliveries(orgId, run.id);
    expect(delivery).toMatchObject({
      state: 'pending',
      attempts: 1,
      lastStatus: null,
      lastError:
        'GitHub unreachable: address refused: 127.0.0.1 is or resolves to a loopback address (refused unless ALLOW_PRIVATE_CODE_HOSTS allows it)',
    });
    expect(fake.requests).toEqual([]);
    expect(logLines.join('\n')).not.toContain(TOKEN);
  });
});
