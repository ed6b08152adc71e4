/**
 * An HTTP proxy in front of a real server that rewrites requests and responses: the way the
 * conformance tests build faulty (and conforming but different) implementations from ours. Each
 * `Fault` sees requests and responses as parsed JSON and may change them, answer on its own, or
 * make its own calls upstream; a body it leaves alone is passed through byte for byte.
 */
import { Agent, createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { RunKeys } from './run-keys.js';

/** Which endpoint a request is for, so faults need not parse paths. */
export type RouteKind = 'create' | 'read' | 'status' | 'control' | 'other';

/** A request as a fault sees it (mutable). */
export interface ProxyRequest {
  method: string;
  /** Path and query, e.g. `/api/v1/payment-requests/pr_x/status`. */
  path: string;
  /** Lower-case header names. */
  headers: Record<string, string>;
  /** The parsed JSON body; undefined when the body is absent or not JSON. Changing it re-serializes. */
  body: any;
  /** The raw body as received. */
  text: string;
  /** The bearer key sent, or undefined. */
  readonly key: string | undefined;
  readonly route: RouteKind;
  /** The `{id}` of a read, status or control call, as the client sent it. */
  readonly id: string | undefined;
}

/** A response as a fault sees it (mutable). */
export interface ProxyResponse {
  status: number;
  /** Lower-case header names. */
  headers: Record<string, string>;
  /** The parsed JSON body; undefined when not JSON. Changing it re-serializes. */
  body: any;
  /** The raw body; to answer with something that is not JSON, set it and set `body` to undefined. */
  text: string;
  /** Bytes to send instead of `body`/`text` (a compressed answer): set by a hook, sent as they are. */
  bytes?: Buffer;
}

/** What a fault may use besides the request and response. */
export interface ProxyContext {
  /** A call of its own to the upstream server (e.g. to create another request or try another key). */
  upstream(method: string, path: string, init?: { key?: string; body?: unknown }): Promise<ProxyResponse>;
  /** The run's keys, learned from the traffic (the default accounts' until the run makes its own). */
  readonly keys: RunKeys;
}

/** One way of changing an implementation's behaviour. Hooks may keep state in their closure. */
export interface Fault {
  name: string;
  description: string;
  /** Rewrites the request in place, or answers it without the upstream by returning a response. */
  request?(req: ProxyRequest, ctx: ProxyContext): void | ProxyResponse | Promise<void | ProxyResponse>;
  /** Rewrites the upstream's response in place. */
  response?(req: ProxyRequest, res: ProxyResponse, ctx: ProxyContext): void | Promise<void>;
  /**
   * Rewrites a webhook delivery on its way from the upstream to its receiver, or drops it
   * (`'drop'`: the receiver gets nothing, the upstream a 200). With this hook the proxy registers
   * itself as every endpoint's URL (relaying to the URL given) and answers the URL given back.
   */
  delivery?(delivery: ProxyDelivery, ctx: ProxyContext): void | 'drop' | Promise<void | 'drop'>;
}

/** A webhook delivery as a fault sees it (mutable): lower-case header names, the body as sent. */
export interface ProxyDelivery {
  headers: Record<string, string>;
  text: string;
}

/** A running proxy. */
export interface RunningProxy {
  url: string;
  close(): Promise<void>;
}

const COLLECTION = '/api/v1/payment-requests';
/** Where the proxy takes webhook deliveries to relay: the receiver's URL follows, encoded. */
const RELAY_PATH = '/__lnpr-relay/';
/** Headers that belong to one connection (and accept-encoding, so the upstream never compresses what a fault reads). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'host', 'upgrade', 'te', 'trailer', 'accept-encoding']);

/** Starts a proxy on 127.0.0.1 (a free port) in front of `upstreamUrl`, applying `fault`. */
export async function startProxy(upstreamUrl: string, fault: Fault): Promise<RunningProxy> {
  const target = new URL(upstreamUrl);
  const agent = new Agent({ keepAlive: true });
  /**
   * One request upstream over node:http (cheaper than fetch, and bytes pass untouched). A kept-alive
   * socket the upstream closed as idle (its 5 s keep-alive timeout) just as the request went out
   * fails with ECONNRESET before any answer: nothing reached the upstream, so it is sent once more,
   * on a new connection (Node's documented `reusedSocket` pattern). Without it, the classifier saw
   * spurious resets now and then, and a check lost the fault only it catches.
   */
  const sendUpstream = (method: string, path: string, headers: Record<string, string>, body?: Buffer | string, retried = false): Promise<ProxyResponse> =>
    new Promise<ProxyResponse>((resolve, reject) => {
      const request = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          method,
          path,
          agent,
          headers: { ...headers, ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}) },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('error', reject);
          response.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            const responseHeaders: Record<string, string> = {};
            for (const [name, value] of Object.entries(response.headers)) {
              if (value !== undefined) responseHeaders[name] = Array.isArray(value) ? value.join(', ') : value;
            }
            const parsed = parseJson(text);
            resolve({ status: response.statusCode ?? 502, headers: responseHeaders, body: parsed.ok ? parsed.value : undefined, text });
          });
        },
      );
      request.on('error', (error: NodeJS.ErrnoException) => {
        if (!retried && request.reusedSocket && error.code === 'ECONNRESET') sendUpstream(method, path, headers, body, true).then(resolve, reject);
        else reject(error);
      });
      request.end(body);
    });
  const ctx: ProxyContext = {
    keys: new RunKeys(),
    upstream(method, path, init = {}) {
      return sendUpstream(
        method,
        path,
        {
          accept: 'application/json',
          ...(init.key !== undefined ? { authorization: `Bearer ${init.key}` } : {}),
          ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        init.body !== undefined ? JSON.stringify(init.body) : undefined,
      );
    },
  };

  /** This proxy's own URL, once it listens (the relay's address, for faults with a delivery hook). */
  let selfUrl = '';
  /** Each relayed endpoint's secret, by its relay URL. */
  const secrets = new Map<string, string>();
  const server: Server = createServer((incoming, outgoing) => {
    handle(incoming, outgoing).catch((error: unknown) => {
      if (!outgoing.headersSent) {
        outgoing.writeHead(502, { 'content-type': 'application/json' });
        outgoing.end(JSON.stringify({ proxyError: String((error as Error).stack ?? error) }));
      } else {
        outgoing.destroy();
      }
    });
  });

  async function handle(incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> {
    if (fault.delivery && (incoming.url ?? '').startsWith(RELAY_PATH)) return relay(incoming, outgoing, fault.delivery);
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const text = raw.toString('utf8');
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(incoming.headers)) {
      if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
    }
    const path = incoming.url ?? '/';
    const parsed = parseJson(text);
    const req: ProxyRequest = {
      method: incoming.method ?? 'GET',
      path,
      headers,
      body: parsed.ok ? parsed.value : undefined,
      text,
      key: bearerKey(headers.authorization),
      ...classify(incoming.method ?? 'GET', path),
    };

    const originalBody = parsed.ok ? JSON.stringify(parsed.value) : undefined;
    const endpoints = fault.delivery !== undefined && /^\/sandbox\/v1\/webhook-endpoints(\/|\?|$)/.test(path);
    // Only what the upstream would deliver to: another scheme goes on as it is, to be refused there.
    if (endpoints && req.method === 'POST' && typeof req.body?.url === 'string' && /^https?:\/\//i.test(req.body.url)) req.body.url = `${selfUrl}${RELAY_PATH}${encodeURIComponent(req.body.url)}`;
    let res: ProxyResponse | void = await fault.request?.(req, ctx);
    if (!res) {
      const changedBody = req.body !== undefined && JSON.stringify(req.body) !== originalBody;
      const forwardHeaders = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !HOP_BY_HOP.has(name)));
      const hasBody = !['GET', 'HEAD'].includes(req.method) && (raw.length > 0 || changedBody);
      res = await sendUpstream(req.method, req.path, forwardHeaders, hasBody ? (changedBody ? JSON.stringify(req.body) : raw) : undefined);
      ctx.keys.learn(req.method, req.path, req.key, res.status, res.body);
      const original = res.body === undefined ? undefined : JSON.stringify(res.body);
      // Each endpoint's URL as the client gave it, not the relay's; its secret kept, to sign a changed delivery again.
      if (endpoints && typeof res.body?.url === 'string' && typeof res.body?.secret === 'string') secrets.set(res.body.url, res.body.secret);
      if (endpoints) for (const endpoint of Array.isArray(res.body?.data) ? res.body.data : [res.body]) if (typeof endpoint?.url === 'string' && endpoint.url.startsWith(`${selfUrl}${RELAY_PATH}`)) endpoint.url = decodeURIComponent(endpoint.url.slice(`${selfUrl}${RELAY_PATH}`.length));
      await fault.response?.(req, res, ctx);
      send(outgoing, res, original);
    } else {
      send(outgoing, res, undefined);
    }
  }

  /** A delivery to the relay: rewritten (or dropped) by the fault, then sent on to its receiver, whose answer goes back. */
  async function relay(incoming: IncomingMessage, outgoing: ServerResponse, rewrite: NonNullable<Fault['delivery']>): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(incoming.headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = Array.isArray(value) ? value.join(', ') : value;
    const delivery: ProxyDelivery = { headers, text: Buffer.concat(chunks).toString('utf8') };
    const sent = delivery.text;
    if ((await rewrite(delivery, ctx)) === 'drop') {
      outgoing.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      return;
    }
    // A body the fault changed is signed again with the endpoint's secret: the change is the fault's, not a broken signature.
    const secret = secrets.get(`${selfUrl}${incoming.url ?? ''}`);
    if (delivery.text !== sent && secret !== undefined) {
      delivery.headers['webhook-signature'] = new Webhook(secret).sign(delivery.headers['webhook-id'] ?? '', new Date(Number(delivery.headers['webhook-timestamp']) * 1000), delivery.text);
    }
    const receiver = new URL(decodeURIComponent((incoming.url ?? '').slice(RELAY_PATH.length)));
    const answer = await fetch(receiver, { method: incoming.method ?? 'POST', headers: delivery.headers, body: delivery.text, signal: AbortSignal.timeout(10_000) });
    outgoing.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' }).end(await answer.text());
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  selfUrl = `http://127.0.0.1:${port}`;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
        agent.destroy();
      }),
  };
}

/** A plain JSON response, for faults that answer on their own. */
export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): ProxyResponse {
  return { status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers }, body, text: JSON.stringify(body) };
}

/** Whether a JSON value is a payment request object (as our server shapes them). */
export function isPaymentRequest(value: unknown): value is Record<string, any> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && typeof (value as any).id === 'string' && 'amount' in value && 'status' in value;
}

/** Sends `res`: its body re-serialized if the fault changed it (or answered on its own), else the upstream's bytes. */
function send(outgoing: ServerResponse, res: ProxyResponse, originalJson: string | undefined): void {
  const payload = res.bytes ?? (res.body !== undefined && JSON.stringify(res.body) !== originalJson ? JSON.stringify(res.body) : res.text);
  const headers = Object.fromEntries(Object.entries(res.headers).filter(([name]) => !HOP_BY_HOP.has(name)));
  headers['content-length'] = String(Buffer.byteLength(payload));
  outgoing.writeHead(res.status, headers);
  outgoing.end(payload);
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  if (text.length === 0) return { ok: false };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

function bearerKey(authorization: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  return match?.[1];
}

function classify(method: string, path: string): { route: RouteKind; id: string | undefined } {
  const pathname = path.split('?')[0]!;
  if (pathname === COLLECTION || pathname === `${COLLECTION}/`) return { route: method === 'POST' ? 'create' : 'other', id: undefined };
  const v1 = /^\/api\/v1\/payment-requests\/([^/]+)(\/status)?\/?$/.exec(pathname);
  if (v1) return { route: v1[2] ? 'status' : 'read', id: safeDecode(v1[1]!) };
  const control = /^\/sandbox\/v1\/payment-requests\/([^/]+)\//.exec(pathname);
  if (control) return { route: 'control', id: safeDecode(control[1]!) };
  if (pathname.startsWith('/sandbox/v1/')) return { route: 'control', id: undefined };
  return { route: 'other', id: undefined };
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
