import { createHmac } from 'node:crypto';

/**
 * A provider A (Stripe-compatible) signature header, `t=<unix seconds>,v1=<hex>`, where the
 * hex is the HMAC-SHA256 of `<t>.<raw body>` keyed with the webhook secret. Computed here
 * with `node:crypto` so the example package needs no payment SDK.
 */
export function providerASignature(body: string, secret: string, unixSeconds: number): string {
  const v1 = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${v1}`;
}
