/** Rewrites the faults and the conforming variants share: per-object edits, id remapping, key order. */
import { createHash } from 'node:crypto';
import { isPaymentRequest, type Fault, type ProxyRequest, type ProxyResponse } from './faulty-proxy.js';

export { KEYS } from './run-keys.js';

/** A response hook that edits every payment request object the server answers with (v1 and control). */
export function eachPaymentRequest(
  edit: (pr: Record<string, any>, req: ProxyRequest, res: ProxyResponse) => void,
): NonNullable<Fault['response']> {
  return (req, res) => {
    if (isPaymentRequest(res.body)) edit(res.body, req, res);
  };
}

/**
 * A response hook that edits every payment request object the server answers with, and the `data`
 * of every event `GET /sandbox/v1/events` lists (the request as GET answered it then): what a
 * conforming variant changes in its payment requests shows in its events as well.
 */
export function eachPaymentRequestAndEvent(
  edit: (pr: Record<string, any>, req: ProxyRequest, res: ProxyResponse) => void,
): (req: ProxyRequest, res: ProxyResponse) => void {
  return (req, res) => {
    if (isPaymentRequest(res.body)) edit(res.body, req, res);
    else if (isEventsList(req, res)) for (const event of res.body.data) if (isPaymentRequest(event?.data)) edit(event.data, req, res);
  };
}

/**
 * A delivery hook that edits the payment request in each webhook delivery's `data` (the proxy
 * signs the changed body again): what a variant changes in its answers shows in its deliveries too.
 */
export function eachDeliveredPaymentRequest(edit: (pr: Record<string, any>) => void): NonNullable<Fault['delivery']> {
  return (delivery) => {
    const body = parseBody(delivery.text);
    if (!isPaymentRequest(body?.data)) return;
    edit(body.data);
    delivery.text = JSON.stringify(body);
  };
}

/** Hooks that edit every payment request a client sees: answers, the events list's data, and deliveries. */
export function everywhere(edit: (pr: Record<string, any>) => void): Pick<Fault, 'response' | 'delivery'> {
  return { response: eachPaymentRequestAndEvent((pr) => edit(pr)), delivery: eachDeliveredPaymentRequest(edit) };
}

function parseBody(text: string): Record<string, any> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as Record<string, any>) : undefined;
  } catch {
    return undefined;
  }
}

/** Whether an answer is the events list (`GET /sandbox/v1/events`, `{"data": [event, …]}`). */
export function isEventsList(req: ProxyRequest, res: ProxyResponse): boolean {
  return req.method === 'GET' && /^\/sandbox\/v1\/events\/?(\?|$)/.test(req.path) && Array.isArray(res.body?.data);
}

/** SHA-256 hex of a string: consistent fake values per id. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The shape of our server's ids. */
const UPSTREAM_ID = /^pr_[0-9A-Za-z]{24}$/;

/**
 * Hooks that show clients other ids than the upstream's, consistently both ways: ids in JSON
 * bodies (`id`, `paymentRequestId`) and the `Location` header on the way out, the `{id}` path
 * segment on the way in (of `/pay/{id}` too). Ids the client never saw pass through unchanged (and are not found). A client
 * id given twice names the latest upstream id.
 */
export function idRemap(toClient: (upstreamId: string, holder: Record<string, unknown> | undefined) => string): Pick<Fault, 'request' | 'response' | 'delivery'> {
  const clientOf = new Map<string, string>();
  const upstreamOf = new Map<string, string>();
  const mapOut = (upstreamId: string, holder?: Record<string, unknown>): string => {
    let clientId = clientOf.get(upstreamId);
    if (clientId === undefined) {
      clientId = toClient(upstreamId, holder);
      clientOf.set(upstreamId, clientId);
      upstreamOf.set(clientId, upstreamId);
    }
    return clientId;
  };
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) {
      value.forEach(walk);
    } else if (typeof value === 'object' && value !== null) {
      const object = value as Record<string, unknown>;
      for (const [key, entry] of Object.entries(object)) {
        if ((key === 'id' || key === 'paymentRequestId') && typeof entry === 'string' && UPSTREAM_ID.test(entry)) object[key] = mapOut(entry, object);
        else if (key !== 'metadata') walk(entry);
      }
    }
  };
  return {
    request(req) {
      // The id of a v1 or control path, or of the hosted pay page (`/pay/{id}`).
      const clientId = req.id ?? /^\/pay\/([^/?]+)/.exec(req.path)?.[1];
      if (clientId === undefined) return;
      const upstreamId = upstreamOf.get(clientId);
      if (upstreamId === undefined) return;
      req.path = req.path.replace(/^(\/api\/v1\/payment-requests\/|\/sandbox\/v1\/payment-requests\/|\/pay\/)[^/?]+/, `$1${encodeURIComponent(upstreamId)}`);
    },
    response(_req, res) {
      walk(res.body);
      const location = res.headers.location;
      if (location !== undefined) res.headers.location = location.replace(/pr_[0-9A-Za-z]{24}/g, (id) => mapOut(id));
    },
    delivery(delivery) {
      const body = parseBody(delivery.text);
      if (body === undefined) return;
      walk(body);
      delivery.text = JSON.stringify(body);
    },
  };
}

/** A deterministic pseudo-random generator (mulberry32). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The same JSON value with every object's keys shuffled (deeply). */
export function shuffleKeys(value: unknown, random: () => number): unknown {
  if (Array.isArray(value)) return value.map((entry) => shuffleKeys(entry, random));
  if (typeof value !== 'object' || value === null) return value;
  const keys = Object.keys(value);
  for (let i = keys.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [keys[i], keys[j]] = [keys[j]!, keys[i]!];
  }
  return Object.fromEntries(keys.map((key) => [key, shuffleKeys((value as Record<string, unknown>)[key], random)]));
}

/** Combines hooks: requests through each in turn (the first answer wins), responses and deliveries through each in reverse. */
export function chain(...parts: Array<Pick<Fault, 'request' | 'response' | 'delivery'>>): Pick<Fault, 'request' | 'response' | 'delivery'> {
  const deliveries = parts.filter((part) => part.delivery !== undefined).reverse();
  return {
    ...(deliveries.length === 0
      ? {}
      : {
          async delivery(delivery, ctx) {
            for (const part of deliveries) if ((await part.delivery!(delivery, ctx)) === 'drop') return 'drop';
            return undefined;
          },
        }),
    async request(req, ctx) {
      for (const part of parts) {
        const answer = await part.request?.(req, ctx);
        if (answer) return answer;
      }
      return undefined;
    },
    async response(req, res, ctx) {
      for (const part of [...parts].reverse()) await part.response?.(req, res, ctx);
    },
  };
}
