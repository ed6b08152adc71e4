/**
 * The shape check of incoming NIP-01 messages, before @nostr-relay/core sees them: the core
 * trusts its input (a `tags` that is not an array, an `ids` that is a string, would throw in it or
 * match wrongly), so anything it gets has been checked here first and rebuilt from the checked
 * fields only. The core itself then verifies each event's id (the hash of its fields) and its
 * signature (`EventUtils.validate`), and answers `OK false "invalid: …"` when either is wrong.
 *
 * Answers (NIP-01): a message that is not JSON, not an array, of an unknown or unsupported type,
 * or without a usable subscription id → `NOTICE`; an event with bad fields → `OK false
 * "invalid: …"` (a `NOTICE` when even its id is unusable, as `OK` must name it); a REQ with a bad
 * filter → `CLOSED "invalid: …"` (NIP-01: a refused REQ is answered with CLOSED).
 */
import type { Event, Filter, IncomingMessage, OutgoingMessage } from '@nostr-relay/common';
import type { RelayLimits } from './relay-limits.js';

/** The limits the check applies. */
export type MessageLimits = Pick<
  RelayLimits,
  'maxMessageBytes' | 'maxFilters' | 'maxFilterBytes' | 'maxLimit' | 'maxEventTags' | 'maxSubscriptionIdLength'
>;

/** A message fit for the core, or the answer to send instead. */
export type CheckResult = { ok: true; message: IncomingMessage } | { ok: false; reply: OutgoingMessage };

const HEX_64 = /^[0-9a-f]{64}$/;
const HEX_128 = /^[0-9a-f]{128}$/;
const TAG_FILTER = /^#[a-zA-Z]$/;
const MAX_KIND = 65_535;

/** Checks a message as received on a socket: its size, its JSON, then its shape. */
export function parseMessage(text: string, limits: MessageLimits): CheckResult {
  if (utf8Length(text, limits.maxMessageBytes) > limits.maxMessageBytes) {
    return notice(`invalid: messages are limited to ${limits.maxMessageBytes} bytes`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return notice('invalid: the message is not JSON');
  }
  return checkMessage(value, limits);
}

/** Checks a parsed message's shape; the message returned holds copies of the checked fields only. */
export function checkMessage(value: unknown, limits: MessageLimits): CheckResult {
  if (!Array.isArray(value) || typeof value[0] !== 'string') {
    return notice('invalid: a message is a JSON array whose first element names its type (EVENT, REQ or CLOSE)');
  }
  const verb = value[0];
  switch (verb) {
    case 'EVENT':
      return checkEventMessage(value, limits);
    case 'REQ':
      return checkReqMessage(value, limits);
    case 'CLOSE':
      if (value.length !== 2 || typeof value[1] !== 'string') return notice('invalid: a CLOSE message is ["CLOSE", <subscription id>]');
      return { ok: true, message: ['CLOSE', value[1]] };
    case 'AUTH':
    case 'COUNT':
      return notice(`unsupported: this relay does not serve ${verb} messages (it speaks NIP-01 EVENT, REQ and CLOSE)`);
    default:
      return notice(`invalid: unknown message type ${JSON.stringify(verb.slice(0, 32))}`);
  }
}

function checkEventMessage(value: unknown[], limits: MessageLimits): CheckResult {
  if (value.length !== 2) return notice('invalid: an EVENT message is ["EVENT", <event>]');
  const event = value[1];
  if (!isPlainObject(event)) return notice('invalid: the event is not a JSON object');
  if (typeof event.id !== 'string' || !HEX_64.test(event.id)) return notice('invalid: the event id must be 64 lowercase hex characters');
  const problem = eventProblem(event, limits);
  if (problem !== undefined) return { ok: false, reply: ['OK', event.id, false, `invalid: ${problem}`] };
  const checked: Event = {
    id: event.id,
    pubkey: event.pubkey as string,
    created_at: event.created_at as number,
    kind: event.kind as number,
    tags: (event.tags as string[][]).map((tag) => [...tag]),
    content: event.content as string,
    sig: event.sig as string,
  };
  return { ok: true, message: ['EVENT', checked] };
}

/** What is wrong with an event's fields besides its id, or undefined. */
function eventProblem(event: Record<string, unknown>, limits: MessageLimits): string | undefined {
  if (typeof event.pubkey !== 'string' || !HEX_64.test(event.pubkey)) return 'pubkey must be 64 lowercase hex characters';
  if (typeof event.sig !== 'string' || !HEX_128.test(event.sig)) return 'sig must be 128 lowercase hex characters';
  if (!isKind(event.kind)) return `kind must be an integer from 0 to ${MAX_KIND}`;
  if (!Number.isSafeInteger(event.created_at) || (event.created_at as number) < 0) return 'created_at must be a whole number of seconds';
  if (typeof event.content !== 'string') return 'content must be a string';
  if (!Array.isArray(event.tags) || !event.tags.every((tag) => Array.isArray(tag) && tag.every((item) => typeof item === 'string'))) {
    return 'tags must be an array of arrays of strings';
  }
  if (event.tags.length > limits.maxEventTags) return `events are limited to ${limits.maxEventTags} tags`;
  return undefined;
}

function checkReqMessage(value: unknown[], limits: MessageLimits): CheckResult {
  const id = value[1];
  if (typeof id !== 'string' || id.length === 0 || id.length > limits.maxSubscriptionIdLength) {
    return notice(`invalid: a subscription id is a string of 1 to ${limits.maxSubscriptionIdLength} characters`);
  }
  const raw = value.slice(2);
  if (raw.length === 0) return closed(id, 'invalid: a REQ needs at least one filter');
  if (raw.length > limits.maxFilters) return closed(id, `invalid: a REQ is limited to ${limits.maxFilters} filters`);
  const filters: Filter[] = [];
  for (const filter of raw) {
    const checked = checkFilter(filter, limits);
    if (typeof checked === 'string') return closed(id, `invalid: ${checked}`);
    filters.push(checked);
  }
  // What an open subscription holds; checked after the types, so stringifying is cheap and safe.
  if (JSON.stringify(filters).length > limits.maxFilterBytes) return closed(id, `invalid: a REQ's filters are limited to ${limits.maxFilterBytes} bytes`);
  return { ok: true, message: ['REQ', id, ...filters] };
}

/** A checked copy of a filter (its `limit` capped), or what is wrong with it. */
function checkFilter(filter: unknown, limits: MessageLimits): Filter | string {
  if (!isPlainObject(filter)) return 'a filter is a JSON object';
  const checked: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(filter)) {
    switch (key) {
      case 'ids':
      case 'authors':
        if (!isArrayOf(value, (item) => typeof item === 'string' && HEX_64.test(item))) return `${key} must be an array of 64-character lowercase hex strings`;
        checked[key] = [...value];
        break;
      case 'kinds':
        if (!isArrayOf(value, isKind)) return `kinds must be an array of integers from 0 to ${MAX_KIND}`;
        checked[key] = [...value];
        break;
      case 'since':
      case 'until':
        // Any number compares; some clients send fractional seconds.
        if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) return `${key} must be a number of seconds`;
        checked[key] = value;
        break;
      case 'limit':
        if (!Number.isSafeInteger(value) || (value as number) < 0) return 'limit must be a whole number';
        checked[key] = Math.min(value as number, limits.maxLimit);
        break;
      case 'search':
        return 'search (NIP-50) is not supported by this relay';
      default:
        if (!TAG_FILTER.test(key)) return `unknown filter field ${JSON.stringify(key.slice(0, 32))}`;
        if (!isArrayOf(value, (item) => typeof item === 'string')) return `${key} must be an array of strings`;
        checked[key] = [...value];
    }
  }
  return checked as Filter;
}

function notice(message: string): CheckResult {
  return { ok: false, reply: ['NOTICE', message] };
}

function closed(subscriptionId: string, message: string): CheckResult {
  return { ok: false, reply: ['CLOSED', subscriptionId, message] };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isArrayOf(value: unknown, isItem: (item: unknown) => boolean): value is unknown[] {
  return Array.isArray(value) && value.every(isItem);
}

function isKind(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= 0 && (value as number) <= MAX_KIND;
}

/** The UTF-8 length of `text`, computed only when it could exceed `atMost`. */
function utf8Length(text: string, atMost: number): number {
  return text.length * 3 <= atMost ? text.length : new TextEncoder().encode(text).length;
}
