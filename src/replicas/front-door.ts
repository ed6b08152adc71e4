/**
 * One listening HTTP server for a replica's two faces: the forwarder (requests for accounts other
 * replicas serve, `/nostr` when another runs the relay) and the sandbox itself; once the sandbox
 * is up, each request and upgrade goes to the face a chooser picks (`routeBy`). Both are Fastify apps
 * made on this server (`serverFactory`); the listeners each adds (`request`, `upgrade`,
 * `clientError`, ...) are taken off the server and called only while that face is the active
 * one, so the switch from proxy to serving happens on the same port without a restart. While
 * the sandbox is being made, requests and upgrades wait here, up to a bound, then get 503
 * `storage_unavailable`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { ApiError } from '../core/errors/errors.js';
import { errorResponse } from '../core/pipeline/handler.js';

/** The faces a replica shows. */
export type Face = 'forwarder' | 'sandbox';

/** The server events a face listens to. */
const EVENTS = ['request', 'upgrade', 'clientError', 'checkExpectation', 'connect'] as const;
type ServerEvent = (typeof EVENTS)[number];
type Listener = (...args: unknown[]) => void;

/** Which face takes a request or upgrade (`refuse`: 503), decided per request once the door routes. */
export type FaceChooser = (request: IncomingMessage, upgrade: boolean) => Face | 'refuse' | Promise<Face | 'refuse'>;

/** A Fastify `serverFactory`. */
export type ServerFactory = (handler: (request: IncomingMessage, response: ServerResponse) => void) => Server;

/** Time limits of the listening server (as `lnpr serve` sets them). */
export interface FrontDoorOptions {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs?: number;
  /** How long a request waits for a takeover to finish; 10 s by default. */
  holdMs?: number;
}

/** The server, its faces' listeners, and which face answers now. */
export class FrontDoor {
  readonly server: Server;
  readonly #faces = new Map<Face, Map<ServerEvent, Listener[]>>();
  #active: Face | 'holding' | 'suspended' = 'forwarder';
  readonly #held = new Set<{ release: () => void; refuse: () => void }>();
  readonly #holdMs: number;
  #chooser: FaceChooser | undefined;

  constructor({ headersTimeoutMs, requestTimeoutMs, keepAliveTimeoutMs = 5_000, holdMs = 10_000 }: FrontDoorOptions) {
    this.#holdMs = holdMs;
    this.server = createServer({
      requireHostHeader: false,
      headersTimeout: headersTimeoutMs,
      requestTimeout: requestTimeoutMs,
      keepAliveTimeout: keepAliveTimeoutMs,
      connectionsCheckingInterval: Math.min(1_000, Math.max(100, Math.floor(Math.min(headersTimeoutMs, requestTimeoutMs) / 10))),
    });
    for (const event of EVENTS) this.server.on(event, (...args: unknown[]) => this.#dispatch(event, args));
  }

  /** Which face answers now (`holding` during a takeover, `suspended` while the database is away). */
  get active(): Face | 'holding' | 'suspended' {
    return this.#active;
  }

  /**
   * Builds a face: `build` gets a Fastify `serverFactory` handing out this server; every listener
   * added to the server meanwhile belongs to the face.
   */
  async face<T>(face: Face, build: (serverFactory: ServerFactory) => Promise<T>): Promise<T> {
    const before = new Map(EVENTS.map((event) => [event, new Set(this.server.listeners(event))]));
    const listeners = new Map<ServerEvent, Listener[]>(EVENTS.map((event) => [event, []]));
    this.#faces.set(face, listeners);
    const result = await build((handler) => {
      listeners.get('request')!.push(handler as Listener);
      return this.server;
    });
    for (const event of EVENTS) {
      for (const listener of this.server.listeners(event) as Listener[]) {
        if (before.get(event)!.has(listener)) continue;
        this.server.off(event, listener);
        listeners.get(event)!.push(listener);
      }
    }
    return result;
  }

  /**
   * While the sandbox face is open, each request and upgrade goes to the face `chooser` picks
   * (a replica serving some accounts, forwarding the others'); the rest of the server's events
   * go to the sandbox's server.
   */
  routeBy(chooser: FaceChooser): void {
    this.#chooser = chooser;
  }

  /** From now on requests wait (a takeover is loading the sandbox). */
  hold(): void {
    this.#active = 'holding';
  }

  /**
   * From now on every request gets 503 `storage_unavailable` at once (a replica that cannot reach the
   * database: another replica may be taking over, so its sandbox in memory may no longer be the
   * sandbox, and reads must not be served from it either).
   */
  suspend(): void {
    this.#active = 'suspended';
  }

  /** Makes `face` the one that answers, and lets waiting requests through to it. */
  open(face: Face): void {
    this.#active = face;
    for (const held of Array.from(this.#held)) held.release();
  }


  #dispatch(event: ServerEvent, args: unknown[]): void {
    if (this.#active === 'holding' && (event === 'request' || event === 'upgrade')) return this.#hold(event, args);
    if (this.#chooser !== undefined && this.#active === 'sandbox' && (event === 'request' || event === 'upgrade')) {
      let choice: ReturnType<FaceChooser>;
      try {
        choice = this.#chooser(args[0] as IncomingMessage, event === 'upgrade');
      } catch {
        choice = 'refuse';
      }
      if (typeof choice === 'string') return this.#deliver(choice, event, args);
      choice.then(
        (face) => this.#deliver(face, event, args),
        () => this.#unheard(event, args),
      );
      return;
    }
    const listeners = this.#active === 'holding' || this.#active === 'suspended' ? undefined : this.#faces.get(this.#active)?.get(event);
    if (listeners === undefined || listeners.length === 0) return this.#unheard(event, args);
    for (const listener of listeners) listener.apply(this.server, args);
  }

  #deliver(face: Face | 'refuse', event: ServerEvent, args: unknown[]): void {
    const listeners = face === 'refuse' ? undefined : this.#faces.get(face)?.get(event);
    if (listeners === undefined || listeners.length === 0) return this.#unheard(event, args);
    for (const listener of listeners) listener.apply(this.server, args);
  }

  /** Keeps a request or upgrade until a face opens, or answers 503 after the hold's bound. */
  #hold(event: ServerEvent, args: unknown[]): void {
    const entry = {
      release: () => {
        clearTimeout(timer);
        this.#held.delete(entry);
        this.#dispatch(event, args);
      },
      refuse: () => {
        this.#held.delete(entry);
        this.#unheard(event, args);
      },
    };
    const timer = setTimeout(entry.refuse, this.#holdMs);
    this.#held.add(entry);
  }

  /** No face takes this event now: 503 for a request or upgrade, 417 / closed otherwise. */
  #unheard(event: ServerEvent, args: unknown[]): void {
    if (event === 'request') {
      const response = args[1] as ServerResponse;
      const { status, headers, body } = errorResponse(this.#active === 'suspended' ? DATABASE_AWAY : NOT_SERVING);
      response.writeHead(status, { ...headers, 'retry-after': '1' }).end(body);
    } else if (event === 'checkExpectation') {
      const { status, headers, body } = errorResponse(new ApiError('expectation_failed'));
      (args[1] as ServerResponse).writeHead(status, headers).end(body);
    } else if (event === 'upgrade' || event === 'connect' || event === 'clientError') {
      const socket = args[event === 'clientError' ? 1 : 1] as Duplex;
      if (event === 'upgrade' && socket.writable) {
        const { status, body } = errorResponse(NOT_SERVING);
        socket.end(`HTTP/1.1 ${status} Service Unavailable\r\ncontent-type: application/json\r\nconnection: close\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
      } else socket.destroy();
    }
  }
}

const NOT_SERVING = new ApiError('storage_unavailable', 'No replica serves the sandbox right now (a takeover is under way); try again in a moment.');
const DATABASE_AWAY = new ApiError('storage_unavailable', 'This replica cannot reach the database; it serves again by itself once it can.');
