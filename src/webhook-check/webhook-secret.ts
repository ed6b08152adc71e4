/**
 * Standard Webhooks secrets: `whsec_` and the base64 of the key bytes. Checked here, before
 * anything is sent, so a mistyped secret is a usage error and not twelve "refused" cases.
 */
/** A secret that is not `whsec_` + base64. Its message never contains the secret. */
export class InvalidWebhookSecret extends Error {
  override readonly name = 'InvalidWebhookSecret';
}

const PREFIX = 'whsec_';
/** Standard (not URL-safe) base64, padded, as Standard Webhooks libraries decode it. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** `secret` when it is `whsec_` followed by non-empty base64; throws InvalidWebhookSecret otherwise. */
export function parseWebhookSecret(secret: string): string {
  if (!secret.startsWith(PREFIX)) throw new InvalidWebhookSecret('the secret must start with whsec_ (a Standard Webhooks secret)');
  const key = secret.slice(PREFIX.length);
  if (key === '' || !BASE64.test(key)) throw new InvalidWebhookSecret('the secret must be whsec_ followed by base64 (A-Z a-z 0-9 + /, padded with =)');
  return secret;
}

/** A fresh random secret (32 bytes), unrelated to the receiver's: what a forger would sign with. */
export function randomWebhookSecret(): string {
  return `${PREFIX}${Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(32))).toString('base64')}`;
}

/** The text forms of a secret that must never be printed: the whole of it and its base64 key. */
export function secretForms(secret: string): string[] {
  const key = secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret;
  // A key under 4 characters is no secret, and replacing it (or a bare `whsec_`) would garble every line.
  return key.length >= 4 ? [secret, key] : [];
}


/** A function that replaces each of `secrets` in a text with `[redacted]` (longest first, so no part of one survives). */
export function redactor(secrets: string[]): (text: string) => string {
  const ordered = [...new Set(secrets)].filter((secret) => secret !== '').sort((a, b) => b.length - a.length);
  return (text) => ordered.reduce((result, secret) => result.split(secret).join('[redacted]'), text);
}
