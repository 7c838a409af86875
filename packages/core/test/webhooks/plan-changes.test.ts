import type { Plan } from '@covgate/core';
import { createTestApi } from '@covgate/testing';
import { describe, expect, it } from 'vitest';
import { withStoreMethod } from '../support/store-method.js';
import {
  eventId,
  NOW_SECONDS,
  PROVIDERS,
  razorpayEvent,
  sendProviderA,
  sendProviderB,
  stripeEvent,
} from './support/senders.js';

/** An API with providers A and B (`api`) and one organisation of it on `plan`. */
async function setup(plan?: Plan, api = createTestApi({ webhooks: { providers: PROVIDERS } })) {
  const org = await api.createOrganisation(plan);
  const planNow = async () => (await api.store.findOrganisationById(org.id))?.plan;
  /** A subscription's metadata that moves the organisation to `plan` (none: back to free). */
  const metadata = (plan?: string) => ({ covgate_org_id: org.id, ...(plan ? { plan } : {}) });
  return { t: api, org, planNow, metadata };
}

/** An API whose store fails the first plan change it is asked to apply, as a database gone. */
function failingOnceApi() {
  let failures = 1;
  return createTestApi(({ store }) => ({
    store: withStoreMethod(store, 'applyPlanChange', (...change) => {
      if (failures === 0) return store.applyPlanChange(...change);
      failures -= 1;
      return Promise.reject(new Error('database gone'));
    }),
    webhooks: { providers: PROVIDERS },
  }));
}

describe('default processing: subscription events set the organisation plan', () => {
  it('moves an organisation to team on a provider A subscription update and back to free on deletion', async () => {
    const { t, planNow, metadata } = await setup();
    const updated = stripeEvent('customer.subscription.updated', metadata('team'));
    expect(await (await sendProviderA(t, updated)).json()).toEqual({ received: true });
    expect(await planNow()).toBe('team');
    const deleted = stripeEvent('customer.subscription.deleted', metadata());
    expect((await sendProviderA(t, deleted)).status).toBe(200);
    expect(await planNow()).toBe('free');
  });

  it('moves an organisation to enterprise on a provider B activation and back to free on cancellation', async () => {
    const { t, planNow, metadata } = await setup();
    const activated = razorpayEvent('subscription.activated', metadata('enterprise'));
    expect((await sendProviderB(t, activated, { eventId: eventId('rzp_') })).status).toBe(200);
    expect(await planNow()).toBe('enterprise');
    const cancelled = razorpayEvent('subscription.cancelled', metadata());
    expect((await sendProviderB(t, cancelled, { eventId: eventId('rzp_') })).status).toBe(200);
    expect(await planNow()).toBe('free');
  });

  it('acknowledges and ignores events it does not handle', async () => {
    const { t, planNow, metadata } = await setup('team');
    for (const type of [
      'invoice.paid',
      'customer.subscription.trial_will_end',
      'CUSTOMER.SUBSCRIPTION.DELETED',
      '',
    ]) {
      const response = await sendProviderA(t, stripeEvent(type, metadata()));
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ received: true });
    }
    expect(await planNow()).toBe('team');
  });

  it('acknowledges, logs and ignores subscription events it cannot apply', async () => {
    const { t, org, planNow } = await setup();
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
    expect(await planNow()).toBe('free');
    const warnings = t.logs.messages().filter((message) => message.startsWith('[webhooks]'));
    expect(warnings).toHaveLength(unusable.length);
    expect(warnings.at(-1)).toMatch(/ignored: unknown organisation org_does_not_exist$/);
  });

  it('answers 500 and releases the event when the plan cannot be stored, then applies the retry', async () => {
    const { t, planNow, metadata } = await setup('free', failingOnceApi());
    const event = stripeEvent('customer.subscription.created', metadata('team'));
    expect((await sendProviderA(t, event)).status).toBe(500);
    expect(t.logs.messages()).toContain('[organisations] database gone');
    expect(await planNow()).toBe('free');
    expect((await sendProviderA(t, event)).status).toBe(200);
    expect(await planNow()).toBe('team');
  });

  it('raises a token’s RateLimit-Limit from 60 to 600 as soon as the plan changes', async () => {
    const { t, org, metadata } = await setup();
    const token = await t.insertToken(org);
    const list = () =>
      t.request(`/v1/executions?org=${org.slug}&repo=api`, {
        headers: { authorization: `Bearer ${token.secret}` },
      });
    const before = await list();
    expect(before.status).toBe(200);
    expect(before.headers.get('ratelimit-limit')).toBe('60');
    const upgrade = stripeEvent('customer.subscription.updated', metadata('team'));
    expect((await sendProviderA(t, upgrade)).status).toBe(200);
    // Same instant: only a purge of the verified-token cache can make the new plan visible.
    const after = await list();
    expect(after.status).toBe(200);
    expect(after.headers.get('ratelimit-limit')).toBe('600');
  });
});

describe('plan changes in the provider’s event order, not arrival order', () => {
  it('keeps a cancelled customer on free when a late retry of an older upgrade arrives (provider A)', async () => {
    const { t, org, planNow, metadata } = await setup();
    const enterprise = stripeEvent(
      'customer.subscription.updated',
      metadata('enterprise'),
      'evt_enterprise',
      NOW_SECONDS - 30,
    );
    const team = stripeEvent(
      'customer.subscription.updated',
      metadata('team'),
      'evt_team',
      NOW_SECONDS - 20,
    );
    const deleted = stripeEvent(
      'customer.subscription.deleted',
      metadata(),
      'evt_deleted',
      NOW_SECONDS - 10,
    );

    expect((await sendProviderA(t, team)).status).toBe(200);
    expect(await planNow()).toBe('team');
    expect((await sendProviderA(t, deleted)).status).toBe(200);
    expect(await planNow()).toBe('free');
    const late = await sendProviderA(t, enterprise);

    expect(late.status).toBe(200);
    expect(await late.json()).toEqual({ received: true });
    expect(await planNow()).toBe('free');
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
    const { t, planNow, metadata } = await setup();
    const activated = razorpayEvent(
      'subscription.activated',
      metadata('enterprise'),
      NOW_SECONDS - 30,
    );
    const cancelled = razorpayEvent('subscription.cancelled', metadata(), NOW_SECONDS - 10);

    expect((await sendProviderB(t, cancelled, { eventId: 'rzp_cancel' })).status).toBe(200);
    const late = await sendProviderB(t, activated, { eventId: 'rzp_activate' });

    expect(late.status).toBe(200);
    expect(await late.json()).toEqual({ received: true });
    expect(await planNow()).toBe('free');
  });

  it('applies events of the same second in arrival order', async () => {
    const { t, planNow, metadata } = await setup();
    const team = stripeEvent('customer.subscription.updated', metadata('team'));
    const enterprise = stripeEvent('customer.subscription.updated', metadata('enterprise'));

    await sendProviderA(t, team);
    await sendProviderA(t, enterprise);

    expect(await planNow()).toBe('enterprise');
  });

  it('acknowledges and does not apply a subscription event without an event time', async () => {
    const { t, planNow, metadata } = await setup();
    const body = JSON.stringify({
      id: 'evt_timeless',
      type: 'customer.subscription.updated',
      data: { object: { id: 'sub_1', metadata: metadata('team') } },
    });

    const response = await sendProviderA(t, body);

    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ received: true });
    expect(await planNow()).toBe('free');
    expect(t.logs.messages()).toContain(
      '[webhooks] provider-a event evt_timeless (customer.subscription.updated) ignored: no event time (created or created_at)',
    );
  });
});

describe('provider B de-duplication on the raw body as well as the event id', () => {
  it('answers a body replayed under a new event id as a duplicate and does not re-apply it', async () => {
    const { t, org, planNow, metadata } = await setup();
    const upgrade = razorpayEvent('subscription.activated', metadata('team'));
    expect(await (await sendProviderB(t, upgrade, { eventId: 'rzp_first' })).json()).toEqual({
      received: true,
    });
    expect(await t.store.setOrganisationPlan(org.id, 'free')).toBe(true);

    const replay = await sendProviderB(t, upgrade, { eventId: 'rzp_replayed' });

    expect(replay.status).toBe(200);
    expect(await replay.json()).toEqual({ received: true, duplicate: true });
    expect(await planNow()).toBe('free');
    const again = await sendProviderB(t, upgrade, { eventId: 'rzp_replayed' });
    expect(await again.json()).toEqual({ received: true, duplicate: true });
  });

  it('processes the retry of a provider B event whose processing failed (both claims released)', async () => {
    const { t, planNow, metadata } = await setup('free', failingOnceApi());
    const upgrade = razorpayEvent('subscription.activated', metadata('team'));

    expect((await sendProviderB(t, upgrade, { eventId: 'rzp_1' })).status).toBe(500);
    const retry = await sendProviderB(t, upgrade, { eventId: 'rzp_1' });

    expect(retry.status).toBe(200);
    expect(await retry.json()).toEqual({ received: true });
    expect(await planNow()).toBe('team');
  });
});
