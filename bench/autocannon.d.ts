/**
 * Types for the part of autocannon's programmatic API the bench uses: autocannon ships no types
 * and `@types/autocannon` is not a dependency, while `npm run typecheck` covers `bench/`.
 */
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  export interface RequestParams {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
  }

  export interface Request extends RequestParams {
    /** Called before each request is sent; returns the request to send. */
    setupRequest?: (request: RequestParams, context: Record<string, unknown>) => RequestParams;
    /** Called with each answer's status and body. */
    onResponse?: (status: number, body: string, context: Record<string, unknown>) => void;
  }

  export interface Options extends RequestParams {
    url: string;
    connections?: number;
    /** Seconds. */
    duration?: number;
    /** A total of requests to send, instead of a duration. */
    amount?: number;
    /** Requests per second across all connections (a fixed rate). */
    overallRate?: number;
    /** Milliseconds between samples; a run ends at the first sample after `duration`. */
    sampleInt?: number;
    requests?: Request[];
  }

  export interface Result {
    /** Seconds the run took. */
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    '2xx': number;
    statusCodeStats: Record<string, { count: number }>;
  }

  /** The running benchmark: emits `response` (client, statusCode, bytes, responseTimeMs) per answer. */
  export interface Instance extends EventEmitter, PromiseLike<Result> {}

  export default function autocannon(options: Options): Instance;
}
