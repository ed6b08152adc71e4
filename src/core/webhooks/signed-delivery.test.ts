/** The one signer, checked by an independent verifier: the `standardwebhooks` library's Webhook.verify. */
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import type { WebhookEvent } from '../../schemas/webhooks.js';
import { signDelivery } from './signed-delivery.js';

const SECRET = 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD';

const event: WebhookEvent = {
  id: 'evt_signed_delivery',
  type: 'payment_request.completed',
  timestamp: '2025-01-01T00:00:00.000Z',
  data: {
    id: 'pr_signed',
    status: 'completed',
    amount: 2_100,
    description: 'Coffee ☕',
    invoice: 'lnbc21u1p',
    paymentHash: 'a'.repeat(64),
    expiresAt: '2025-01-01T01:00:00.000Z',
    isNwc: false,
    preimage: 'b'.repeat(64),
    feeAmount: 21,
    feePercentage: 1,
    createdAt: '2025-01-01T00:00:00.000Z',
    updatedAt: '2025-01-01T00:00:05.000Z',
  },
};

describe('signDelivery', () => {
  it('builds a delivery that Webhook.verify accepts, with the event as its body', () => {
    const sentAtMs = Date.now();
    const { headers, body } = signDelivery(event, SECRET, sentAtMs);
    expect(new Webhook(SECRET).verify(body, headers)).toEqual(event);
    expect(body).toBe(JSON.stringify(event));
    expect(headers).toEqual({
      'content-type': 'application/json',
      'user-agent': 'lnpr-sandbox-webhooks',
      'webhook-id': 'evt_signed_delivery',
      'webhook-timestamp': String(Math.floor(sentAtMs / 1000)),
      'webhook-signature': expect.stringMatching(/^v1,[A-Za-z0-9+/]{43}=$/),
    });
  });

  it('fails verification once the body is changed, even by whitespace', () => {
    const { headers, body } = signDelivery(event, SECRET, Date.now());
    const verifier = new Webhook(SECRET);
    expect(() => verifier.verify(body.replace('"amount":2100', '"amount":210000'), headers)).toThrow('No matching signature found');
    expect(() => verifier.verify(JSON.stringify(event, null, 1), headers)).toThrow('No matching signature found');
  });

  it('fails verification with another secret, or at another timestamp', () => {
    const { headers, body } = signDelivery(event, SECRET, Date.now());
    expect(() => new Webhook('whsec_' + btoa('another secret, 24 bytes')).verify(body, headers)).toThrow('No matching signature found');
    const later = String(Number(headers['webhook-timestamp']) + 1);
    expect(() => new Webhook(SECRET).verify(body, { ...headers, 'webhook-timestamp': later })).toThrow('No matching signature found');
  });

  it('signs for the second of the attempt (Unix seconds), as the header says', () => {
    const sentAtMs = Date.parse('2025-01-01T00:00:07.999Z');
    const { headers, body } = signDelivery(event, SECRET, sentAtMs);
    expect(headers['webhook-timestamp']).toBe(String(Date.parse('2025-01-01T00:00:07.000Z') / 1000));
    expect(headers['webhook-signature']).toBe(new Webhook(SECRET).sign(event.id, new Date('2025-01-01T00:00:07.000Z'), body));
  });
});
