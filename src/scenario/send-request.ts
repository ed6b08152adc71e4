/** Sends one step's request with `fetch` and reads the answer; a target that cannot be reached is its own error. */
import type { StepResponse } from './expectations.js';
import type { RawRequest } from './scenario-schema.js';

/** The part of `fetch` the runner uses, so tests and browsers can hand in their own. */
export type FetchLike = (url: string, init: { method: string; headers: Record<string, string>; body?: string; signal?: AbortSignal }) => Promise<{
  status: number;
  text(): Promise<string>;
  /** The answer's headers, for `expect.headers` (fetch's `Headers` has this). */
  headers?: { forEach(visit: (value: string, name: string) => void): void };
}>;

/** The target did not answer at all (connection refused, DNS, reset): not a failed expectation. */
export class TargetUnreachableError extends Error {
  override readonly name = 'TargetUnreachableError';
}

/** How long one request may take before the target counts as unreachable: a hung server must not hang CI. */
export const REQUEST_TIMEOUT_MS = 30_000;

/** Sends `request` to `baseUrl` with `apiKey` (none when null) and parses the JSON answer. */
export async function sendRequest(
  fetchFn: FetchLike,
  baseUrl: string,
  apiKey: string | null,
  request: RawRequest,
  timeoutMs = REQUEST_TIMEOUT_MS,
): Promise<StepResponse> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (apiKey !== null) headers.authorization = `Bearer ${apiKey}`;
  let body: string | undefined;
  if (request.rawBody !== undefined) body = request.rawBody;
  else if (request.body !== undefined) body = JSON.stringify(request.body);
  // Only requests with a body say it is JSON: some servers refuse a content type without a body.
  if (body !== undefined) headers['content-type'] = 'application/json';
  for (const [name, value] of Object.entries(request.headers ?? {})) headers[name.toLowerCase()] = value;

  const url = baseUrl.replace(/\/+$/, '') + request.path;
  let status: number;
  let text: string;
  const answerHeaders: Record<string, string> = {};
  const started = performance.now();
  try {
    const signal = AbortSignal.timeout(timeoutMs);
    const response = await fetchFn(url, { method: request.method.toUpperCase(), headers, signal, ...(body !== undefined ? { body } : {}) });
    status = response.status;
    response.headers?.forEach((value, name) => (answerHeaders[name.toLowerCase()] = value));
    text = await response.text();
  } catch (error) {
    if ((error as Error).name === 'TimeoutError') throw new TargetUnreachableError(`no answer from ${url} within ${timeoutMs / 1000} s`, { cause: error });
    throw new TargetUnreachableError(`cannot reach ${url}: ${reasonOf(error)}`, { cause: error });
  }
  return { status, body: parse(text), text, headers: answerHeaders, durationMs: performance.now() - started };
}

function parse(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    // Not JSON: expectations on fields will fail on a string, which is the point.
    return text;
  }
}

/** Node's fetch says only "fetch failed" and hides the reason (ECONNREFUSED, bad port…) in `cause`. */
function reasonOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string; errors?: Array<{ message?: string }> } }).cause;
  const message = cause?.message || cause?.errors?.map((inner) => inner.message).join('; ');
  if (cause?.code !== undefined) return message && !message.includes(cause.code) ? `${cause.code} (${message})` : (message ?? cause.code);
  if (message) return message;
  return (error as Error).message ?? String(error);
}
