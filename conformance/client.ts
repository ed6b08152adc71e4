/**
 * The suite's only way to the target: HTTP through `fetch` (the global one, or one given, e.g.
 * MSW-intercepted). Bounded concurrency so a real implementation is not hammered, 429
 * `Retry-After` honoured, a timeout per request, and keys never in any message it produces. It
 * records every exchange with a v1 path (what was sent, by which key's role, and the answer), so
 * rules can be held on every answer the run received.
 */
import { repeatedNames } from './json-names.js';

/** What a request sends. `key: null` sends no Authorization header; undefined sends the main key. */
export interface ApiCall {
  key?: string | null;
  /** Serialized as JSON with `Content-Type: application/json`. */
  body?: unknown;
  /** Sent as is (with `Content-Type: application/json` unless `headers` says otherwise). */
  rawBody?: string;
  headers?: Record<string, string>;
}

/** What came back. `body` is the parsed JSON, or undefined when the body is not JSON. */
export interface ApiAnswer {
  status: number;
  headers: Headers;
  text: string;
  body: any;
  isJson: boolean;
  durationMs: number;
}

/** Which key a request carried, by role: logs name keys this way and never hold one. */
export type KeyRole = 'main' | 'read-only' | 'nwc' | 'other' | 'none';

/**
 * One exchange with a v1 endpoint, as the client records it: what was asked (method, path, the
 * key's role, the JSON body sent) and what came back. Checks marked `last` review every one.
 */
export interface LoggedAnswer {
  method: string;
  /** The path without the query. */
  path: string;
  /** The role of the key sent (the key itself is never logged). */
  key: KeyRole;
  /** The JSON body sent, parsed (a raw body that is not JSON: undefined). */
  sent?: unknown;
  status: number;
  /** The Content-Type header, or null when absent. */
  contentType: string | null;
  /** Whether the body parsed as JSON. */
  isJson: boolean;
  /** The parsed JSON body of the answer, else undefined. */
  body?: unknown;
  /** Member names the JSON text gives twice in one object (JSON.parse kept the last), when there are any. */
  repeatedNames?: string[];
  /** When the request left and when its answer was read (performance.now()): which answers may see the effects of which. */
  sentAt: number;
  receivedAt: number;
}

/** The target could not be reached at all (exit status 2, not a failed check). */
export class TargetUnreachable extends Error {
  override readonly name = 'TargetUnreachable';
}

/** Options of the client. */
export interface ApiClientOptions {
  baseUrl: string;
  apiKey: string;
  fetch?: typeof fetch;
  concurrency?: number;
  timeoutMs?: number;
  /** Longest wait honoured for one 429 `Retry-After`. */
  maxRetryAfterMs?: number;
  /** The other keys of the run by role, so the log can say which one a request carried. */
  keyRoles?: Partial<Record<'read-only' | 'nwc', string>>;
}

/** An HTTP client bound to one target. */
export class ApiClient {
  readonly baseUrl: string;
  readonly #apiKey: string;
  readonly #fetch: typeof fetch;
  readonly #timeoutMs: number;
  readonly #maxRetryAfterMs: number;
  readonly #slots: Semaphore;
  readonly #log: LoggedAnswer[] = [];
  readonly #roles: Map<string, KeyRole>;

  constructor(options: ApiClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.#apiKey = options.apiKey;
    this.#fetch = options.fetch ?? globalThis.fetch;
    this.#timeoutMs = options.timeoutMs ?? 15_000;
    this.#maxRetryAfterMs = options.maxRetryAfterMs ?? 30_000;
    this.#slots = new Semaphore(options.concurrency ?? 4);
    this.#roles = new Map(Object.entries(options.keyRoles ?? {}).flatMap(([role, key]) => (key === undefined ? [] : [[key, role as KeyRole]])));
    this.#roles.set(options.apiKey, 'main');
  }

  /** Sends one request; retries after a 429 with `Retry-After`. */
  async request(method: string, path: string, call: ApiCall = {}): Promise<ApiAnswer> {
    for (let attempt = 0; ; attempt++) {
      const answer = await this.#slots.run(() => this.#send(method, path, call));
      const retryAfterMs = answer.status === 429 ? retryAfter(answer.headers.get('retry-after')) : undefined;
      if (retryAfterMs === undefined || attempt >= 5 || retryAfterMs > this.#maxRetryAfterMs) return answer;
      await new Promise((resolve) => setTimeout(resolve, retryAfterMs));
    }
  }

  /** Every exchange with a `/api/v1/` path so far, in arrival order (a copy). */
  v1Answers(): LoggedAnswer[] {
    return [...this.#log];
  }

  /** GET with the main key. */
  get(path: string, call?: ApiCall): Promise<ApiAnswer> {
    return this.request('GET', path, call);
  }

  /** POST with the main key. */
  post(path: string, call?: ApiCall): Promise<ApiAnswer> {
    return this.request('POST', path, call);
  }

  async #send(method: string, path: string, call: ApiCall): Promise<ApiAnswer> {
    const key = call.key === undefined ? this.#apiKey : call.key;
    const hasBody = call.body !== undefined || call.rawBody !== undefined;
    const headers: Record<string, string> = {
      accept: 'application/json',
      ...(key !== null ? { authorization: `Bearer ${key}` } : {}),
      ...(hasBody ? { 'content-type': 'application/json' } : {}),
      ...call.headers,
    };
    const started = performance.now();
    let response: Response;
    try {
      response = await this.#fetch(this.baseUrl + path, {
        method,
        headers,
        ...(hasBody ? { body: call.rawBody ?? JSON.stringify(call.body) } : {}),
        signal: AbortSignal.timeout(this.#timeoutMs),
        redirect: 'manual',
      });
    } catch (error) {
      const { cause } = error as { cause?: { code?: string; message?: string } };
      const reason = cause?.code ?? cause?.message ?? (error as Error).message;
      throw new TargetUnreachable(`${method} ${this.baseUrl}${path.slice(0, 100)} failed: ${reason}`);
    }
    const text = await response.text();
    let body: unknown;
    let isJson = false;
    try {
      body = JSON.parse(text);
      isJson = true;
    } catch {
      body = undefined;
    }
    if (path.startsWith('/api/v1/')) {
      const pathname = path.split('?')[0]!;
      const sent = call.body !== undefined ? call.body : parseOrUndefined(call.rawBody);
      const repeated = isJson ? repeatedNames(text) : [];
      this.#log.push({
        method,
        path: pathname,
        key: key === null ? 'none' : (this.#roles.get(key) ?? 'other'),
        ...(sent !== undefined ? { sent } : {}),
        status: response.status,
        contentType: response.headers.get('content-type'),
        isJson,
        ...(isJson ? { body } : {}),
        ...(repeated.length > 0 ? { repeatedNames: repeated } : {}),
        sentAt: started,
        receivedAt: performance.now(),
      });
    }
    return { status: response.status, headers: response.headers, text, body, isJson, durationMs: performance.now() - started };
  }
}

function parseOrUndefined(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function retryAfter(header: string | null): number | undefined {
  if (header === null) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** At most `size` tasks at once. */
class Semaphore {
  #free: number;
  readonly #waiting: Array<() => void> = [];

  constructor(size: number) {
    this.#free = Math.max(1, size);
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#free > 0) this.#free--;
    else await new Promise<void>((resolve) => this.#waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#free++;
    }
  }
}
