/**
 * `lnpr listen`: follows an account's events live (`GET /sandbox/v1/stream`, whose
 * `payment_request` messages carry each event as webhooks do) and forwards each to a local URL as
 * a Standard Webhooks delivery, signed exactly as the sandbox signs its own (the engine's
 * `signDelivery`, through the sender `lnpr webhooks check` uses): how a receiver on a laptop gets
 * the events of a shared or remote sandbox that cannot reach it. One line per delivery.
 *
 * Nothing is lost or forwarded twice across a dropped stream. The listener keeps a cursor, the id
 * of the newest event it has handled (forwarded, or left out by `--events`; at the start, the
 * account's newest event, which it does not forward). After a drop it connects again (0.25 s,
 * then twice as long each time up to 5 s), and before reading the new stream it reads
 * `GET /sandbox/v1/events?limit=100` (newest first) and forwards, oldest first, the events newer
 * than the cursor; the new stream was opened first, so what happens meanwhile waits in it, and
 * the ids of the last 1,000 events handled keep it from being forwarded again. Should the cursor
 * not be among those 100 (more happened in the gap, or the account was reset), a line says so and
 * the 100 are forwarded. The sandbox's streams send no SSE `id:` (nor read `Last-Event-ID`), so
 * the events list is the only way to resume; were a stream to send ids, a line would note it.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { EVENT_TYPES, type EventType, type WebhookEvent } from '../schemas/webhooks.js';
import { signedDelivery, unixSeconds } from '../webhook-check/outgoing-delivery.js';
import type { DeliveryRecord } from '../webhook-check/result.js';
import { DELIVERY_TIMEOUT_MS } from '../webhook-check/run-webhook-check.js';
import { sendDelivery } from '../webhook-check/send-delivery.js';
import { InvalidWebhookSecret, parseWebhookSecret, randomWebhookSecret } from '../webhook-check/webhook-secret.js';
import { parseBaseUrl } from './args.js';
import { openEventStream, StreamDropped, type EventStreamConnection } from './event-stream.js';
import { PROCESS_IO, type CommandIo } from './report-command.js';
import { callSandbox, SandboxHttpError, SandboxUnreachable, type SandboxTarget } from './sandbox-client.js';
import { UsageError } from './usage-error.js';

/** The usage text of `lnpr listen`. */
export const LISTEN_USAGE = `Usage: lnpr listen --base-url URL --api-key KEY --forward-to URL [--events TYPES] [--secret whsec_…]

  Follows the account's events live and forwards each to URL as a Standard Webhooks delivery,
  signed as the sandbox signs its own webhooks: the way to receive a shared or remote sandbox's
  events on this machine. Prints one line per delivery: the time, the event's type and id, the
  receiver's status (or why there was none) and how long it took. After a dropped stream it
  follows again (0.25 s, then up to 5 s between tries) and first forwards what it missed, oldest
  first; no event is forwarded twice.

  --base-url URL     the sandbox, e.g. http://127.0.0.1:8787
  --api-key KEY      a key of the account (a read-only key will do)
  --forward-to URL   where deliveries are POSTed, e.g. http://127.0.0.1:3000/webhooks
  --events TYPES     only these types, comma-separated (default: all):
                     ${EVENT_TYPES.slice(0, 2).join(', ')},
                     ${EVENT_TYPES.slice(2).join(', ')}
  --secret whsec_…   the secret to sign with, the one your receiver verifies with
                     (default: a new one, printed at the start)

  Ctrl-C (SIGINT) or SIGTERM stops it: exit status 0. Exit status 1: the sandbox refused the
  stream (its status and error code are printed, e.g. 401 for a wrong key); 2: bad usage, or a
  sandbox that cannot be reached at the start.
`;

/** The flags `lnpr listen` parses (its usage text above lists each: a test holds it). */
export const LISTEN_OPTIONS = {
  'base-url': { type: 'string' },
  'api-key': { type: 'string' },
  'forward-to': { type: 'string' },
  events: { type: 'string' },
  secret: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies NonNullable<ParseArgsConfig['options']>;

/** The first wait before following a dropped stream again, and the longest. */
export const RECONNECT_DELAY_MS = { first: 250, max: 5_000 } as const;
/** Events read back after a drop (the events list, newest first). */
export const CATCH_UP_LIMIT = 100;
/** Ids of the last events handled that are never forwarded again. */
export const REMEMBERED_IDS = 1_000;

/** Runs `lnpr listen <args>` until SIGINT or SIGTERM. */
export async function listen(args: string[], io: CommandIo = PROCESS_IO): Promise<void> {
  const { values, positionals } = parseOptions(args);
  if (values.help || args.length === 0) {
    io.stdout.write(LISTEN_USAGE);
    return;
  }
  if (positionals.length > 0) throw new UsageError('lnpr listen takes options only (lnpr listen --help)');
  const baseUrl = parseBaseUrl(values['base-url']);
  const apiKey = values['api-key'];
  if (apiKey === undefined || apiKey === '') throw new UsageError('--api-key KEY is required (a key of the account, e.g. sk_test_custodial)');
  const forwardTo = parseForwardTo(values['forward-to']);
  const types = values.events === undefined ? undefined : parseEventTypes(values.events);
  const secret = values.secret === undefined ? undefined : parseSecret(values.secret);

  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const say = (text: string) => io.stdout.write(`${text}\n`);
  try {
    say(`lnpr listen: ${baseUrl} → ${forwardTo}`);
    const signingSecret = secret ?? randomWebhookSecret();
    // A secret the user gave is never printed; a generated one must be, or nothing could verify.
    say(secret === undefined ? `Signing secret: ${signingSecret} (generated; verify with it, or choose one with --secret)` : 'Signing with the secret of --secret');
    await followEvents({ target: { baseUrl, apiKey }, forwardTo, secret: signingSecret, types, say, signal: stop.signal });
  } catch (error) {
    if (error instanceof SandboxUnreachable) throw new UsageError(error.message);
    if (!(error instanceof SandboxHttpError)) throw error;
    io.stderr.write(`lnpr: ${error.message}\n`);
    process.exitCode = 1;
    return;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  say(`${clockTime()}  stopped`);
}

/** What `followEvents` needs. */
export interface FollowOptions {
  target: SandboxTarget;
  forwardTo: string;
  secret: string;
  /** Only these types are forwarded (all when undefined). */
  types: ReadonlySet<EventType> | undefined;
  /** Writes one line. */
  say(line: string): void;
  /** Stops following; the promise then resolves. */
  signal: AbortSignal;
}

/**
 * Follows the account's events and forwards them until `signal` stops it. Rejects with
 * `SandboxUnreachable` or `SandboxHttpError` when the first connection fails, and with
 * `SandboxHttpError` when a later one is refused for good (a 4xx other than 408 and 429).
 */
export async function followEvents(options: FollowOptions): Promise<void> {
  const { target, signal, say } = options;
  const delays = RECONNECT_DELAY_MS;
  const forwarder = new Forwarder(options);
  let delayMs: number = delays.first;
  let started = false;
  let notedIds = false;
  while (!signal.aborted) {
    let connection: EventStreamConnection | undefined;
    let connected = false;
    let reason: string;
    try {
      connection = await openEventStream(target, '/sandbox/v1/stream', { signal });
      connected = true;
      if (!started) {
        // Where the account stands: events up to here happened before listening, and are not forwarded.
        forwarder.cursor = (await listEvents(target, 1, signal))[0]?.id ?? null;
        started = true;
        const only = options.types === undefined ? 'every event' : [...options.types].join(', ');
        say(`${clockTime()}  following the account's events (${only}); Ctrl-C stops`);
      } else {
        const forwarded = await forwarder.catchUp(await listEvents(target, CATCH_UP_LIMIT, signal));
        say(`${clockTime()}  following again; ${forwarded} missed event${forwarded === 1 ? '' : 's'} forwarded`);
      }
      // Followed again: the next drop waits the first delay again.
      delayMs = delays.first;
      for await (const message of connection.messages()) {
        if (message.id !== undefined && !notedIds) {
          notedIds = true;
          say(`${clockTime()}  note: the stream sends SSE ids (${message.id}); lnpr listen resumes from the events list all the same`);
        }
        if (message.event !== 'payment_request') continue;
        let event: WebhookEvent;
        try {
          event = JSON.parse(message.data) as WebhookEvent;
        } catch {
          say(`${clockTime()}  skipped a payment_request message that is not JSON`);
          continue;
        }
        await forwarder.handle(event);
        if (signal.aborted) break;
      }
      reason = 'the sandbox ended the stream';
    } catch (error) {
      connection?.close();
      if (signal.aborted) break;
      if (!started) throw error;
      if (error instanceof SandboxHttpError && error.status >= 400 && error.status < 500 && error.status !== 408 && error.status !== 429) throw error;
      if (!(error instanceof SandboxHttpError || error instanceof SandboxUnreachable || error instanceof StreamDropped)) throw error;
      reason = error.message;
    }
    if (signal.aborted) break;
    say(`${clockTime()}  ${connected ? 'stream dropped' : 'cannot follow the stream'} (${reason}); trying again in ${formatDelay(delayMs)}`);
    await sleep(delayMs, signal);
    delayMs = Math.min(delayMs * 2, delays.max);
  }
}

/** Forwards events once each, in the order handed to it, and keeps the cursor. */
class Forwarder {
  /** The newest event handled; null when the account had none at the start. */
  cursor: string | null = null;
  readonly #seen = new RecentIds(REMEMBERED_IDS);
  readonly #options: FollowOptions;
  readonly #fetch: typeof fetch;

  constructor(options: FollowOptions) {
    this.#options = options;
    // A stop cuts a delivery under way short rather than waiting out its timeout.
    this.#fetch = (input, init) => fetch(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, options.signal]) : options.signal });
  }

  /** Forwards `event` unless it was handled already or its type is left out; whether it did. */
  async handle(event: WebhookEvent): Promise<boolean> {
    if (this.#seen.has(event.id)) return false;
    this.#seen.add(event.id);
    this.cursor = event.id;
    const { types, secret, forwardTo, say, signal } = this.#options;
    if (types !== undefined && !types.has(event.type)) return false;
    const record = await sendDelivery(signedDelivery(event, secret, unixSeconds(), 'forwarded by lnpr listen'), {
      url: forwardTo,
      timeoutMs: DELIVERY_TIMEOUT_MS,
      fetch: this.#fetch,
    });
    if (!(signal.aborted && record.status === undefined)) say(deliveryLine(event, record));
    return true;
  }

  /** Handles, oldest first, the events of `newestFirst` newer than the cursor; how many it forwarded. */
  async catchUp(newestFirst: WebhookEvent[]): Promise<number> {
    const at = this.cursor === null ? -1 : newestFirst.findIndex((event) => event.id === this.cursor);
    if (this.cursor !== null && at === -1) {
      const count = newestFirst.length;
      this.#options.say(
        count >= CATCH_UP_LIMIT
          ? `${clockTime()}  the last event handled (${this.cursor}) is not among the account's newest ${count}: events may have been missed; forwarding those ${count}`
          : `${clockTime()}  the last event handled (${this.cursor}) is no longer listed (the account was reset, or the sandbox restarted without --data); ` +
              (count === 0 ? 'no event to forward' : `forwarding the ${count} listed`),
      );
    } else if (this.cursor === null && newestFirst.length >= CATCH_UP_LIMIT) {
      this.#options.say(`${clockTime()}  ${CATCH_UP_LIMIT} or more events happened meanwhile: events may have been missed; forwarding the newest ${newestFirst.length}`);
    }
    const missed = (at === -1 ? newestFirst : newestFirst.slice(0, at)).filter((event) => !this.#seen.has(event.id)).reverse();
    let forwarded = 0;
    for (const event of missed) {
      if (this.#options.signal.aborted) break;
      if (await this.handle(event)) forwarded += 1;
    }
    return forwarded;
  }
}

/** A set of the last `capacity` ids added. */
export class RecentIds {
  readonly #ids = new Set<string>();

  constructor(readonly capacity: number) {}

  has(id: string): boolean {
    return this.#ids.has(id);
  }

  add(id: string): void {
    this.#ids.add(id);
    // A Set iterates in insertion order: the first is the oldest.
    if (this.#ids.size > this.capacity) this.#ids.delete(this.#ids.values().next().value!);
  }

  get size(): number {
    return this.#ids.size;
  }
}

/** The account's newest `limit` events, newest first. */
async function listEvents(target: SandboxTarget, limit: number, signal: AbortSignal): Promise<WebhookEvent[]> {
  return (await callSandbox<{ data: WebhookEvent[] }>(target, 'GET', `/sandbox/v1/events?limit=${limit}`, { signal })).data;
}

/** `12:00:01  payment_request.completed  evt_…  → 204 (12 ms)`. */
function deliveryLine(event: WebhookEvent, record: DeliveryRecord): string {
  const answer = record.status === undefined ? `no answer: ${record.error}` : record.verdict === 'redirected' ? `${record.status} (redirect, not followed)` : String(record.status);
  return `${clockTime()}  ${event.type.padEnd(25)}  ${event.id}  → ${answer} (${Math.round(record.durationMs)} ms)`;
}

/** The local wall time, `HH:MM:SS`. */
function clockTime(date = new Date()): string {
  return [date.getHours(), date.getMinutes(), date.getSeconds()].map((part) => String(part).padStart(2, '0')).join(':');
}

function formatDelay(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${ms / 1000} s`;
}

/** Waits `ms`, or less if `signal` stops it. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

function parseOptions(args: string[]) {
  try {
    return parseArgs({
      args,
      strict: true,
      allowPositionals: true,
      options: LISTEN_OPTIONS,
    });
  } catch (error) {
    // parseArgs messages name options, never values: no secret can be echoed.
    throw new UsageError(`${(error as Error).message} (lnpr listen --help)`);
  }
}

/** An http(s) URL, kept exactly as given: the receiver's own address. */
function parseForwardTo(value: string | undefined): string {
  if (value === undefined || value === '') throw new UsageError('--forward-to URL is required: where to POST the deliveries, e.g. --forward-to http://127.0.0.1:3000/webhooks');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--forward-to: "${value}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--forward-to: "${value}" is not an http(s) URL`);
  if (url.username !== '' || url.password !== '') {
    throw new UsageError('--forward-to: a user or password in the URL is never sent (deliveries carry no credentials but their signature); give the URL without it');
  }
  return value;
}

/** `--events a,b`: known types, at least one. */
function parseEventTypes(value: string): ReadonlySet<EventType> {
  const names = value.split(',').map((name) => name.trim()).filter((name) => name !== '');
  if (names.length === 0) throw new UsageError(`--events needs at least one type: ${EVENT_TYPES.join(', ')}`);
  for (const name of names) {
    if (!(EVENT_TYPES as readonly string[]).includes(name)) throw new UsageError(`--events: unknown event type "${name.slice(0, 64)}"; the types are ${EVENT_TYPES.join(', ')}`);
  }
  return new Set(names as EventType[]);
}

function parseSecret(value: string): string {
  try {
    return parseWebhookSecret(value);
  } catch (error) {
    if (error instanceof InvalidWebhookSecret) throw new UsageError(`--secret: ${error.message}`);
    throw error;
  }
}
