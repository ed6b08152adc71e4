/** Standard Webhooks secrets: what is accepted, what is refused, and how they are kept out of text. */
import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { InvalidWebhookSecret, parseWebhookSecret, randomWebhookSecret, redactor, secretForms } from './webhook-secret.js';

describe('parseWebhookSecret', () => {
  it('accepts whsec_ + padded base64, as the sandbox and Svix issue them', () => {
    for (const secret of ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'whsec_YQ==', 'whsec_YWI=', 'whsec_a+b/', randomWebhookSecret()]) {
      expect(parseWebhookSecret(secret)).toBe(secret);
      expect(() => new Webhook(secret)).not.toThrow();
    }
  });

  it.each([
    ['MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'must start with whsec_'],
    ['WHSEC_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'must start with whsec_'],
    ['whsec_', 'followed by base64'],
    ['whsec_abc', 'followed by base64'],
    ['whsec_a-b_', 'followed by base64'],
    ['whsec_YQ', 'followed by base64'],
    ['whsec_YQ==\n', 'followed by base64'],
    ['whsec_ YQ==', 'followed by base64'],
  ])('refuses %j, without quoting it', (secret, reason) => {
    const error = (() => {
      try {
        parseWebhookSecret(secret);
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(InvalidWebhookSecret);
    expect((error as Error).message).toContain(reason);
    expect((error as Error).message).not.toContain(secret.replace(/^whsec_/i, '') || '\u0000');
  });

  it('randomWebhookSecret: 32 random bytes, a new one each time', () => {
    const secret = randomWebhookSecret();
    expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    expect(randomWebhookSecret()).not.toBe(secret);
  });
});

describe('redaction', () => {
  it('hides the secret whole and its key alone; a key too short to be secret is left alone', () => {
    const redact = redactor(secretForms('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'));
    expect(redact('got whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw and MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')).toBe('got [redacted] and [redacted]');
    expect(secretForms('whsec_')).toEqual([]);
    expect(secretForms('whsec_YQ=')).toEqual([]);
  });

  it('replaces the longest first, so no part of a longer secret survives a shorter one', () => {
    expect(redactor(['abcd', 'xxabcdxx'])('[xxabcdxx]')).toBe('[[redacted]]');
  });
});
