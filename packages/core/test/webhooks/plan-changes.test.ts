import type { Store } from '@covgate/core';
import { createTestApi } from '@covgate/testing';
import { providerA, providerB } from '@covgate/webhook-signature';
import { describe, expect, it } from 'vitest';
import {
  eventId,
  NOW_SECONDS,
  PROVIDER_A_SECRET,
  PROVIDER_B_SECRET,
  razorpayEvent,
  sendProviderA,
  sendProviderB,
  stripeEvent,
} from './support/senders.js';

const providers = [
  { ...providerA, secret: PROVIDER_A_SECRET },
  { ...providerB, secret: PROVIDER_B_SECRET },
];

function setup() {
  return createTestApi({ webhooks: { providers } });
}

async function planOf(store: Store, orgId: string) {
  return (await store.findOrganisationById(orgId))?.plan;
}

describe('default processing: subscription events set the organisation plan', () => {
  it('moves an organisation to team on a provider A subscription update and back to free on deletion', async () => {
    const t = setup();
    const org = await t.createOrganisation();
    const updated = stripeEvent('customer.subscription.updated', {
      covgate_org_id: org.id,
      plan: 'team',
    });
    expect(await (await sendProviderA(t, updated)).json()).toEqual({ received: true });
    expect(await planOf(t.store, org.id)).toBe('team');
    const deleted = stripeEvent('customer.subscription.deleted', { covgate_org_id: org.id });
    expect((await sendProviderA(t, deleted)).status).toBe(200);
    expect(await planOf(t.store, org.id)).toBe('free');
  });

  it('moves an organisation to enterprise on a provider B activation and back to free on cancellation', async () => {
    const t = setup();
    const org = await t.createOrganisation();
    const activated = razorpayEvent('subscription.activated', {
      covgate_org_id: org.id,
      plan: 'enterprise',
    });
    expect((await sendProviderB(t, activated, { eventId: eventId('rzp_') })).status).toBe(200);
    expect(await planOf(t.store, org.id)).toBe('enterprise');
    const cancelled = razorpayEvent('subscription.cancelled', { covgate_org_id: org.id });
    expect((await sendProviderB(t, cancelled, { eventId: eventId('rzp_') })).status).toBe(200);
    expect(await planOf(t.store, org.id)).toBe('free');
  });

  it('acknowledges and ignores events it does not handle', async () => {
    const t = setup();
    const org = await t.createOrganisation('team');
    for (const type of [
      'invoice.paid',
      'customer.subscription.trial_will_end',
      'CUSTOMER.SUBSCRIPTION.DELETED',
      '',
    ]) {
      const response = await sendProviderA(t, stripeEvent(type, { covgate_org_id: org.id }));
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ received: true });
    }
    expect(await planOf(t.store, org.id)).toBe('team');
  });

  it('acknowledges, logs and ignores subscription events it cannot apply', async () => {
    const t = setup();
    const org = await t.createOrganisation();
    const unusable = [
      { plan: 'team' },
      { covgate_org_id: org.id },
      { covgate_org_id: org.id, plan: 'gold' },
      { covgate_org_id: org.id, plan: 'Team' },
      { covgate_org_id: ['org'], plan: 'team' },
      { covgate_org_id: 'org_does_not_exist', plan: 'team' },
    ];
    for (const metadata of unusable) {
      const response = await sendProviderA(
        t,
        stripeEvent('customer.subscription.created', metadata),
      );
      expect(response.status).toBe(200);
    }
    expect(await planOf(t.store, org.id)).toBe('free');
    const warnings = t.logs.messages().filter((message) => message.startsWith('[webhooks]'));
    expect(warnings).toHaveLength(unusable.length);
    expect(warnings.at(-1)).toMatch(/ignored: unknown organisation org_does_not_exist$/);
  });

  it('answers 500 and releases the event when the plan cannot be stored, then applies the retry', async () => {
    let failures = 1;
    const t = createTestApi(({ store }) => ({
      store: new Proxy(store, {
        get(target, property) {
          const value = Reflect.get(target, property, target);
          if (property === 'applyPlanChange' && failures > 0) {
            return async () => {
              failures -= 1;
              throw new Error('database gone');
            };
          }
          return typeof value === 'function' ? value.bind(target) : value;
        },
      }),
      webhooks: { providers },
    }));
    const org = await t.createOrganisation();
    const event = stripeEvent('customer.subscription.created', {
      covgate_org_id: org.id,
      plan: 'team',
    });
    expect((await sendProviderA(t, event)).status).toBe(500);
    expect(t.logs.messages()).toContain('[organisations] database gone');
    expect(await planOf(t.store, org.id)).toBe('free');
    expect((await sendProviderA(t, event)).status).toBe(200);
    expect(await planOf(t.store, org.id)).toBe('team');
  });

  it('raises a token’s RateLimit-Limit from 60 to 600 as soon as the plan changes', async () => {
    const t = setup();
    const org = await t.createOrganisation();
    const token = await t.insertToken(org);
    const list = () =>
      t.request(`/v1/executions?org=${org.slug}&repo=api`, {
        headers: { authorization: `Bearer ${token.secret}` },
      });
    const before = await list();
    expect(before.status).toBe(200);
    expect(before.headers.get('ratelimit-limit')).toBe('60');
    const upgrade = stripeEvent('customer.subscription.updated', {
      covgate_org_id: org.id,
      plan: 'team',
    });
    expect((await sendProviderA(t, upgrade)).status).toBe(200);
    // Same instant: only a purge of the verified-token cache can make the new plan visible.
    const after = await list();
    expect(after.status).toBe(200);
    expect(after.headers.get('ratelimit-limit')).toBe('600');
  });
});

describe('plan changes in the provider’s event order, not arrival order', () => {
  it('keeps a cancelled customer on free when a late retry of an older upgrade arrives (provider A)', async () => {
    const t = setup();
    const org = await t.createOrganisation();
    const meta = (plan?: string) => ({ covgate_org_id: org.id, ...(plan ? { plan } : {}) });
    const enterprise = stripeEvent(
      'customer.subscription.updated',
      meta('enterprise'),
      'evt_enterprise',
      NOW_SECONDS - 30,
    );
    const team = stripeEvent(
      'customer.subscription.updated',
      meta('team'),
      'evt_team',
      NOW_SECONDS - 20,
    );
    const deleted = stripeEvent(
      'customer.subscription.deleted',
      meta(),
      'evt_deleted',
      NOW_SECONDS - 10,
    );

    expect((await sendProviderA(t, team)).status).toBe(200);
    expect(await planOf(t.store, org.id)).toBe('team');
    expect((await sendProviderA(t, deleted)).status).toBe(200);
    expect(await planOf(t.store, org.id)).toBe('free');
    const late = await sendProviderA(t, enterprise);

    expect(late.status).toBe(200);
    expect(await late.json()).toEqual({ received: true });
    expect(await planOf(t.store, org.id)).toBe('free');
    expect(t.logs.messages()).toContain(
      `[webhooks] provider-a event evt_enterprise (customer.subscription.updated) ignored: older than the last plan change applied to organisation ${org.id}`,
    );
    // The late event was claimed: its next retry is a plain duplicate.
    expect(await (await sendProviderA(t, enterprise)).json()).toEqual({
      received: true,
      duplicate: true,
    });
  });

  it('keeps a cancelled customer on free when an older activation arrives late (provider B)', async () => {
    const t = setup();
    const org = await t.createOrganisation();
    const activated = razorpayEvent(
      'subscription.activated',
      { covgate_org_id: org.id, plan: 'enterprise' },
      NOW_SECONDS - 30,
    );
    const cancelled = razorpayEvent(
      'subscription.cancelled',
      { covgate_org_id: org.id },
      NOW_SECONDS - 10,
    );

    expect((await sendProviderB(t, cancelled, { eventId: 'rzp_cancel' })).status).toBe(200);
    const late = await sendProviderB(t, activated, { eventId: 'rzp_activate' });

    expect(late.status).toBe(200);
    expect(await late.json()).toEqual({ received: true });
    expect(await planOf(t.store, org.id)).toBe('free');
  });

  it('applies events of the same second in arrival order', async () => {
    const t = setup();
    const org = await t.createOrganisation();
    const team = stripeEvent('customer.subscription.updated', {
      covgate_org_id: org.id,
      plan: 'team',
    });
    const enterprise = stripeEvent('customer.subscription.updated', {
      covgate_org_id: org.id,
      plan: 'enterprise',
    });

    await sendProviderA(t, team);
    await sendProviderA(t, enterprise);

    expect(await planOf(t.store, org.id)).toBe('enterprise');
  });

  it('acknowledges and does not apply a subscription event without an event time', async () => {
    const t = setup();
    const org = await t.createOrganisation();
    const body = JSON.stringify({
      id: 'evt_timeless',
      type: 'customer.subscription.updated',
      data: { object: { id: 'sub_1', metadata: { covgate_org_id: org.id, plan: 'team' } } },
    });

    const response = await sendProviderA(t, body);

    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ received: true });
    expect(await planOf(t.store, org.id)).toBe('free');
    expect(t.logs.messages()).toContain(
      '[webhooks] provider-a event evt_timeless (customer.subscription.updated) ignored: no event time (created or created_at)',
    );
  });
});

describe('provider B de-duplication on the raw body as well as the event id', () => {
  it('answers a body replayed under a new event id as a duplicate and does not re-apply it', async () => {
    const t = setup();
    const org = await t.createOrganisation();
    const upgrade = razorpayEvent('subscription.activated', {
      covgate_org_id: org.id,
      plan: 'team',
    });
    expect(await (await sendProviderB(t, upgrade, { eventId: 'rzp_first' })).json()).toEqual({
      received: true,
    });
    expect(await t.store.setOrganisationPlan(org.id, 'free')).toBe(true);

    const replay = await sendProviderB(t, upgrade, { eventId: 'rzp_replayed' });

    expect(replay.status).toBe(200);
    expect(await replay.json()).toEqual({ received: true, duplicate: true });
    expect(await planOf(t.store, org.id)).toBe('free');
    const again = await sendProviderB(t, upgrade, { eventId: 'rzp_replayed' });
    expect(await again.json()).toEqual({ received: true, duplicate: true });
  });

  it('processes the retry of a provider B event whose processing failed (both claims released)', async () => {
    let failures = 1;
    const t = createTestApi(({ store }) => ({
      store: new Proxy(store, {
        get(target, property) {
          const value = Reflect.get(target, property, target);
          if (property === 'applyPlanChange' && failures > 0) {
            return async () => {
              failures -= 1;
              throw new Error('database gone');
            };
          }
          return typeof value === 'function' ? value.bind(target) : value;
        },
      }),
      webhooks: { providers },
    }));
    const org = await t.createOrganisation();
    const upgrade = razorpayEvent('subscription.activated', {
      covgate_org_id: org.id,
      plan: 'team',
    });

    expect((await sendProviderB(t, upgrade, { eventId: 'rzp_1' })).status).toBe(500);
    const retry = await sendProviderB(t, upgrade, { eventId: 'rzp_1' });

    expect(retry.status).toBe(200);
    expect(await retry.json()).toEqual({ received: true });
    expect(await planOf(t.store, org.id)).toBe('team');
  });
});
