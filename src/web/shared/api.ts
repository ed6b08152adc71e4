/**
 * The pages' HTTP client: plain `fetch` to the sandbox's own origin, like any client of the API.
 * The dashboard sends its key in the Authorization header; the pay page sends none.
 */

/** An error answer of the API, in its one error shape. */
export class ApiProblem extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: Array<{ field: string; code: string; message: string }>;

  constructor(status: number, code: string, message: string, details: ApiProblem['details'] = []) {
    super(message);
    this.name = 'ApiProblem';
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

/**
 * Calls the API; resolves with the parsed body (undefined for 202/204 without one), throws ApiProblem
 * otherwise. `signal` cancels the call (the dashboard's calls end with the key they were made with).
 */
export async function callApi<T>(method: string, path: string, options: { key?: string; body?: unknown; signal?: AbortSignal } = {}): Promise<T> {
  const headers: Record<string, string> = {};
  if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
      ...(options.signal !== undefined ? { signal: options.signal } : {}),
    });
  } catch {
    throw new ApiProblem(0, 'network_error', 'The sandbox could not be reached. Is it still running?');
  }
  const text = await response.text();
  const json = text === '' ? undefined : (JSON.parse(text) as unknown);
  if (!response.ok) {
    const error = (json as { error?: { code?: string; message?: string; details?: ApiProblem['details'] } } | undefined)?.error;
    throw new ApiProblem(response.status, error?.code ?? 'unknown', error?.message ?? `The sandbox answered ${response.status}.`, error?.details);
  }
  return json as T;
}

/** One line for a person: the API's message and, for validation errors, each field's problem. */
export function describeProblem(error: unknown): string {
  if (!(error instanceof ApiProblem)) return error instanceof Error ? error.message : String(error);
  const details = error.details.map((detail) => detail.message);
  return details.length > 0 ? `${error.message} (${details.join('; ')})` : error.message;
}
