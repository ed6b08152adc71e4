/**
 * What `lnpr trigger` and `lnpr listen` need of a running sandbox: JSON calls with a key, and the
 * two ways one can fail, told apart because the CLI answers them differently: the sandbox
 * answered with an error (`SandboxHttpError`: its status and error code, exit 1), or nothing
 * answered at all (`SandboxUnreachable`: exit 2, as for every command whose target is down).
 */

/** Where the sandbox is and the key to call it with. */
export interface SandboxTarget {
  /** Without a trailing slash (`parseBaseUrl`). */
  baseUrl: string;
  apiKey: string;
}

/** How long one call may take before the sandbox counts as unreachable. */
export const CALL_TIMEOUT_MS = 30_000;

/** The sandbox answered a call with a status other than 2xx. */
export class SandboxHttpError extends Error {
  override readonly name = 'SandboxHttpError';

  constructor(
    readonly method: string,
    readonly path: string,
    readonly status: number,
    /** `error.code` of the answer, or undefined when it was not the API's error shape. */
    readonly code: string | undefined,
    detail: string | undefined,
  ) {
    super(`${method} ${path} answered ${status}${code === undefined ? '' : ` ${code}`}${detail ? `: ${detail}` : ''}`);
  }
}

/** Nothing answered: connection refused, DNS, reset, or no answer in time. */
export class SandboxUnreachable extends Error {
  override readonly name = 'SandboxUnreachable';
}

/** `method path` against the sandbox with the key; the parsed JSON answer (null for an empty one). */
export async function callSandbox<T = unknown>(
  target: SandboxTarget,
  method: string,
  path: string,
  options: { body?: unknown; signal?: AbortSignal; timeoutMs?: number } = {},
): Promise<T> {
  const url = target.baseUrl + path;
  const timeoutMs = options.timeoutMs ?? CALL_TIMEOUT_MS;
  const timeout = AbortSignal.timeout(timeoutMs);
  const headers: Record<string, string> = { authorization: `Bearer ${target.apiKey}`, accept: 'application/json' };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, {
      method,
      headers,
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
      signal: options.signal === undefined ? timeout : AbortSignal.any([options.signal, timeout]),
    });
    text = await response.text();
  } catch (error) {
    // A stop asked for by the caller is no failure of the sandbox.
    if (options.signal?.aborted) throw error;
    throw unreachable(url, error, timeoutMs);
  }
  if (response.status < 200 || response.status > 299) throw httpError(method, path, response.status, text);
  if (text === '') return null as T;
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new SandboxHttpError(method, path, response.status, undefined, 'the answer is not JSON: is --base-url a sandbox?');
  }
}

/** The error of a non-2xx answer with body `text`: the API's `{"error": {"code", "message"}}` when it is that. */
export function httpError(method: string, path: string, status: number, text: string): SandboxHttpError {
  let code: string | undefined;
  let message: string | undefined;
  try {
    const error = (JSON.parse(text) as { error?: { code?: unknown; message?: unknown } }).error;
    if (typeof error?.code === 'string') code = error.code;
    if (typeof error?.message === 'string') message = error.message;
  } catch {
    // Not JSON (a proxy's page, say): its first words are all there is to say.
    message = text.trim().slice(0, 200) || undefined;
  }
  return new SandboxHttpError(method, path, status, code, message);
}

/** Why `url` did not answer, in words a person can act on. */
export function unreachable(url: string, error: unknown, timeoutMs = CALL_TIMEOUT_MS): SandboxUnreachable {
  if ((error as Error).name === 'TimeoutError') return new SandboxUnreachable(`no answer from ${url} within ${timeoutMs / 1000} s`, { cause: error });
  return new SandboxUnreachable(`cannot reach ${url}: ${reasonOf(error)}`, { cause: error });
}

/** Node's fetch says only "fetch failed" and hides the reason (ECONNREFUSED, bad port…) in `cause`. */
export function reasonOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string; errors?: Array<{ message?: string }> } }).cause;
  const message = cause?.message || cause?.errors?.map((inner) => inner.message).join('; ');
  if (cause?.code !== undefined) return message && !message.includes(cause.code) ? `${cause.code} (${message})` : (message ?? cause.code);
  if (message) return message;
  return (error as Error).message ?? String(error);
}
