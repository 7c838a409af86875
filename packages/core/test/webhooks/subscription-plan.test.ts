import { subscriptionPlanChange } from '@covgate/core';
import { describe, expect, it } from 'vitest';

const stripe = (type: string, metadata: unknown) => ({
  type,
  payload: { id: 'evt_1', type, data: { object: { metadata } } },
});
const razorpay = (type: string, notes: unknown) => ({
  type,
  payload: { event: type, payload: { subscription: { entity: { notes } } } },
});

describe('subscriptionPlanChange', () => {
  it.each([
    'customer.subscription.created',
    'customer.subscription.updated',
    'customer.subscription.resumed',
  ])('reads the plan of a Stripe-like %s event from data.object.metadata', (type) => {
    expect(subscriptionPlanChange(stripe(type, { covgate_org_id: 'org_1', plan: 'team' }))).toEqual(
      {
        kind: 'change',
        orgId: 'org_1',
        plan: 'team',
      },
    );
  });

  it.each([
    'subscription.activated',
    'subscription.charged',
    'subscription.resumed',
    'subscription.updated',
  ])(
    'reads the plan of a Razorpay-like %s event from payload.subscription.entity.notes',
    (type) => {
      expect(
        subscriptionPlanChange(razorpay(type, { covgate_org_id: 'org_2', plan: 'enterprise' })),
      ).toEqual({ kind: 'change', orgId: 'org_2', plan: 'enterprise' });
    },
  );

  it.each([
    ['customer.subscription.deleted', stripe],
    ['customer.subscription.paused', stripe],
    ['subscription.cancelled', razorpay],
    ['subscription.completed', razorpay],
    ['subscription.halted', razorpay],
    ['subscription.paused', razorpay],
  ] as const)('sets free on %s whatever plan the metadata names', (type, build) => {
    expect(subscriptionPlanChange(build(type, { covgate_org_id: 'org_3', plan: 'team' }))).toEqual({
      kind: 'change',
      orgId: 'org_3',
      plan: 'free',
    });
  });

  it('ignores other events, and event names in another case', () => {
    for (const type of ['invoice.paid', 'payment.captured', 'Customer.Subscription.Updated', '']) {
      expect(
        subscriptionPlanChange(stripe(type, { covgate_org_id: 'org_1', plan: 'team' })),
      ).toEqual({
        kind: 'ignore',
        reason: 'not a subscription event',
      });
    }
  });

  it('ignores a subscription event without a usable covgate_org_id', () => {
    for (const metadata of [
      undefined,
      null,
      [],
      'org_1',
      {},
      { covgate_org_id: '' },
      { covgate_org_id: 7 },
      { covgate_org_id: 'o'.repeat(129) },
    ]) {
      expect(subscriptionPlanChange(stripe('customer.subscription.updated', metadata))).toEqual({
        kind: 'ignore',
        reason: 'no covgate_org_id',
      });
    }
  });

  it('ignores a plan that is not exactly free, team or enterprise', () => {
    for (const plan of [undefined, 'gold', 'Team', ' team', 1, null, ['team']]) {
      expect(
        subscriptionPlanChange(
          stripe('customer.subscription.updated', { covgate_org_id: 'org_1', plan }),
        ),
      ).toEqual({ kind: 'ignore', reason: 'no valid plan' });
    }
  });

  it('does not read metadata from the other provider’s place or from inherited properties', () => {
    const misplaced = {
      type: 'subscription.activated',
      payload: stripe('x', { covgate_org_id: 'o', plan: 'team' }).payload,
    };
    expect(subscriptionPlanChange(misplaced)).toEqual({
      kind: 'ignore',
      reason: 'no covgate_org_id',
    });
    const metadata = Object.create({ covgate_org_id: 'org_evil', plan: 'enterprise' });
    const inherited = { data: { object: { metadata } } };
    expect(
      subscriptionPlanChange({ type: 'customer.subscription.updated', payload: inherited }),
    ).toEqual({
      kind: 'ignore',
      reason: 'no covgate_org_id',
    });
  });
});
