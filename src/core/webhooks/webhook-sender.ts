/**
 * The webhook sender port: how a delivery attempt goes over the wire. The dispatcher uses it;
 * each platform implements it (src/webhook-sender: node:http, fetch).
 */
import type { AddressRefusal } from './address-policy.js';

/** One webhook delivery attempt as it goes over the wire. */
export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** The attempt fails after this long without a complete answer. */
  timeoutMs: number;
  /**
   * For a sender that resolves names itself: the refusal of an address the name resolves to, or
   * undefined where it may be used; checked before connecting. Absent: nothing to check.
   */
  checkAddress?: (address: string) => AddressRefusal | undefined;
}

/** How an attempt went: the receiver's status, or why there was none. */
export type WebhookResponse = { status: number; durationMs: number } | { error: string; durationMs: number };

/**
 * Sends webhook deliveries (Node: node:http with a timeout, a cap on the response size and no
 * redirects followed). Never throws: failures are answers. Aborted by `signal` when the sandbox
 * closes; an aborted attempt is not recorded, so it is made again after a restart.
 */
export interface WebhookSender {
  send(request: WebhookRequest, signal: AbortSignal): Promise<WebhookResponse>;
}

