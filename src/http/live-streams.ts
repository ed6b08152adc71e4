/**
 * Live updates for the web pages as Server-Sent Events, pushed from the same events as webhooks
 * (never polled). A transport matter, so it lives here and not in the engine:
 *
 * - `GET /sandbox/v1/stream`: the dashboard's stream of one account, authenticated like every
 *   control call by `Authorization: Bearer <key>` (the dashboard reads it with fetch, since an
 *   EventSource cannot send headers; a key in a URL would end up in logs and history). Messages:
 *   `clock` (the account's clock, at the start and after every move), `payment_request` (each
 *   event, as webhooks carry it) and `delivery` (each recorded delivery attempt).
 * - `GET /pay/{id}/stream`: the hosted pay page's stream, no key (the id is the secret, as for
 *   the page itself). Its one message, `state`, is exactly what `GET /sandbox/v1/pay-page/{id}`
 *   answers, sent at the start, on each change of that request and on each move of its account's
 *   clock; `gone` once the request no longer exists (a reset).
 *
 * A comment line every 15 s keeps proxies from closing a quiet stream; a closed connection
 * unsubscribes at once; and a closing server ends them all, so a graceful stop does not wait for
 * browsers. Streams are capped so that no one can take them all: one client (remote address) at
 * most 10 open at a time, one pay page at most 5, all clients together 100; past a cap, 503
 * `too_many_streams` with `Retry-After: 5`. (Behind a proxy every client has the proxy's address, unless `--trust-proxy` names it.)
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PassThrough } from 'node:stream';
import type { Permission } from '../core/accounts/accounts.js';
import type { Engine } from '../core/engine.js';
import { ApiError } from '../core/errors/errors.js';
import { errorResponse, type ApiResponse, type RequestHandler } from '../core/pipeline/handler.js';
import type { ClockView } from '../schemas/control.js';
import type { WebhookDelivery, WebhookEvent } from '../schemas/webhooks.js';
import { SOCKET_ADDRESSES, type ClientAddresses } from './client-address.js';

/** What the streams need from the sandbox. */
export interface LiveSource {
  /** The account of an Authorization header; throws ApiError (401) for a missing or unknown key. */
  authenticate(authorization: string | undefined): string;
  /** What the key of an Authorization header may do (the dashboard's `GET /dashboard/api/key`); throws as `authenticate` does. */
  permissionsOf(authorization: string | undefined): ReadonlySet<Permission>;
  /** The account's clock as the control API shows it. */
  clockOf(accountId: string): ClockView;
  /** The account owning a payment request, if there is one with that id. */
  ownerOf(paymentRequestId: string): string | undefined;
  onEvent(listener: (event: WebhookEvent, accountId: string) => void): () => void;
  onDelivery(listener: (delivery: WebhookDelivery, accountId: string) => void): () => void;
  onClockMove(listener: (accountId: string) => void): () => void;
}

/** The live source of an engine. */
export function liveSourceOf(engine: Engine): LiveSource {
  return {
    authenticate: (authorization) => engine.directory.authenticate(authorization).account.id,
    permissionsOf: (authorization) => engine.directory.authenticate(authorization).permissions,
    clockOf: (accountId) => ({ now: new Date(engine.clocks.now(accountId)).toISOString(), frozen: engine.clocks.isFrozen(accountId) }),
    ownerOf: (id) => engine.store.getPaymentRequest(id)?.accountId,
    onEvent: (listener) => engine.onEvent(listener),
    onDelivery: (listener) => engine.onDelivery(listener),
    onClockMove: (listener) => engine.onClockMove(listener),
  };
}

/** Options of the streams. */
export interface LiveStreamOptions {
  live: LiveSource;
  /** The engine's handler: the pay page's stream sends what it answers for the pay-page view. */
  handle: RequestHandler;
  /** Streams open at once, both kinds, all clients; 100 by default. */
  maxStreams?: number;
  /** Streams one client (remote address) may hold, both kinds; 10 by default. */
  maxStreamsPerClient?: number;
  /** Streams of one pay page (one payment request's `/pay/{id}/stream`); 5 by default. */
  maxStreamsPerPayPage?: number;
  /** Milliseconds between keep-alive comments; 15 s by default. */
  heartbeatMs?: number;
  /** Who a request comes from (`client-address.ts`); the socket's address by default. */
  clientAddresses?: ClientAddresses;
}

/** One open stream. */
interface EventStream {
  send(event: string, data: string): void;
  /** Runs `cleanup` when the stream closes (either side). */
  onClose(cleanup: () => void): void;
  end(): void;
}

/** Registers both streams on `app`. */
export function registerLiveStreams(
  app: FastifyInstance,
  { live, handle, maxStreams = 100, maxStreamsPerClient = 10, maxStreamsPerPayPage = 5, heartbeatMs = 15_000, clientAddresses = SOCKET_ADDRESSES }: LiveStreamOptions,
): void {
  const open = new Set<EventStream>();
  const byClient = new Counts();
  const byPayPage = new Counts();
  // A closing server ends every stream: browsers would keep them open, and the close waiting.
  app.addHook('preClose', async () => {
    for (const stream of open) stream.end();
  });

  /** The refusal of one more stream for `client` (and the pay page `payPage`), if a cap is reached. */
  const capReached = (client: string, payPage: string | undefined): ApiError | undefined => {
    if (open.size >= maxStreams) return new ApiError('too_many_streams');
    if (byClient.of(client) >= maxStreamsPerClient) {
      return new ApiError('too_many_streams', `This client already holds ${maxStreamsPerClient} live streams, the most one client may; close one and try again.`);
    }
    if (payPage !== undefined && byPayPage.of(payPage) >= maxStreamsPerPayPage) {
      return new ApiError('too_many_streams', `This pay page already has ${maxStreamsPerPayPage} live streams open, the most one may; close one and try again.`);
    }
    return undefined;
  };

  /** Starts a stream on `reply` (of the pay page `payPage`, if given), or answers 503 past a cap. */
  const start = (request: FastifyRequest, reply: FastifyReply, payPage?: string): EventStream | undefined => {
    const client = clientAddresses.of(request.raw);
    const refusal = capReached(client, payPage);
    if (refusal !== undefined) {
      sendResponse(reply.header('retry-after', '5'), errorResponse(refusal));
      return undefined;
    }
    const body = new PassThrough();
    const cleanups: Array<() => void> = [];
    let closed = false;
    const stream: EventStream = {
      send(event, data) {
        if (!closed) body.write(`event: ${event}\ndata: ${data.replace(/\n/g, '\ndata: ')}\n\n`);
      },
      onClose(cleanup) {
        if (closed) cleanup();
        else cleanups.push(cleanup);
      },
      end() {
        if (closed) return;
        closed = true;
        open.delete(stream);
        byClient.remove(client);
        if (payPage !== undefined) byPayPage.remove(payPage);
        clearInterval(heartbeat);
        for (const cleanup of cleanups.splice(0)) cleanup();
        body.end();
      },
    };
    const heartbeat = setInterval(() => body.write(': keep-alive\n\n'), heartbeatMs);
    heartbeat.unref();
    open.add(stream);
    byClient.add(client);
    if (payPage !== undefined) byPayPage.add(payPage);
    request.raw.on('close', () => stream.end());
    reply.raw.on('close', () => stream.end());
    body.write(`retry: 3000\n: connected\n\n`);
    void reply
      .code(200)
      .headers({
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        'x-accel-buffering': 'no',
        'x-content-type-options': 'nosniff',
      })
      .send(body);
    return stream;
  };

  app.get('/sandbox/v1/stream', async (request, reply) => {
    let accountId: string;
    try {
      accountId = live.authenticate(request.headers.authorization);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      return sendResponse(reply, errorResponse(error));
    }
    const stream = start(request, reply);
    if (stream === undefined) return reply;
    const sendClock = () => stream.send('clock', JSON.stringify(live.clockOf(accountId)));
    sendClock();
    stream.onClose(live.onEvent((event, account) => account === accountId && stream.send('payment_request', JSON.stringify(event))));
    stream.onClose(live.onDelivery((delivery, account) => account === accountId && stream.send('delivery', JSON.stringify(delivery))));
    stream.onClose(live.onClockMove((account) => account === accountId && sendClock()));
    return reply;
  });

  app.get<{ Params: { id: string } }>('/pay/:id/stream', async (request, reply) => {
    const { id } = request.params;
    const read = () => handle({ method: 'GET', url: `/sandbox/v1/pay-page/${encodeURIComponent(id)}`, headers: {} });
    const first = await read();
    const accountId = live.ownerOf(id);
    if (first.status !== 200 || accountId === undefined) return sendResponse(reply, first);
    const stream = start(request, reply, id);
    if (stream === undefined) return reply;
    stream.send('state', first.body);
    // Reads are answered in the order they were asked, so the last state sent is the latest.
    const refresh = () =>
      void read().then((answer) => (answer.status === 200 ? stream.send('state', answer.body) : (stream.send('gone', '{}'), stream.end())));
    stream.onClose(live.onEvent((event) => event.data.id === id && refresh()));
    stream.onClose(live.onClockMove((account) => account === accountId && refresh()));
    return reply;
  });
}

function sendResponse(reply: FastifyReply, response: ApiResponse): FastifyReply {
  return reply.code(response.status).headers(response.headers).send(response.body === '' ? undefined : response.body);
}

/** Open streams by key (a client's address, a pay page's id); a key at zero is forgotten. */
class Counts {
  readonly #counts = new Map<string, number>();

  of(key: string): number {
    return this.#counts.get(key) ?? 0;
  }

  add(key: string): void {
    this.#counts.set(key, this.of(key) + 1);
  }

  remove(key: string): void {
    const count = this.of(key) - 1;
    if (count > 0) this.#counts.set(key, count);
    else this.#counts.delete(key);
  }
}
