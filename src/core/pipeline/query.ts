/**
 * Query parameters of list endpoints. Each is checked like a body field: a bad value is a 400
 * naming it, never ignored, so a typo in a filter cannot look like an empty result.
 */
import { ApiError, type ErrorDetail } from './errors.js';

/** The query of a request URL. */
export function queryOf(url: string): URLSearchParams {
  const start = url.indexOf('?');
  return new URLSearchParams(start === -1 ? '' : url.slice(start + 1));
}

/** Reads named parameters; collects every problem into one `invalid_request`. */
export class QueryReader {
  readonly #query: URLSearchParams;
  readonly #problems: ErrorDetail[] = [];

  constructor(url: string, known: readonly string[]) {
    this.#query = queryOf(url);
    for (const name of new Set(this.#query.keys())) {
      if (!known.includes(name)) this.#problem(name, 'unknown_parameter', `${name} is not a parameter here (known: ${known.join(', ')})`);
    }
  }

  /** A whole number within bounds, or `fallback` when absent. */
  integer(name: string, fallback: number, min: number, max: number): number {
    const text = this.#query.get(name);
    if (text === null) return fallback;
    const value = Number(text);
    if (!/^\d+$/.test(text) || value < min || value > max) {
      this.#problem(name, 'invalid_value', `${name} must be a whole number from ${min} to ${max}`);
      return fallback;
    }
    return value;
  }

  /** One of `values`, or undefined when absent. */
  oneOf<T extends string>(name: string, values: readonly T[]): T | undefined {
    const text = this.#query.get(name);
    if (text === null) return undefined;
    if ((values as readonly string[]).includes(text)) return text as T;
    this.#problem(name, 'invalid_value', `${name} must be one of ${values.join(', ')}`);
    return undefined;
  }

  /** A non-empty string, or undefined when absent. */
  text(name: string): string | undefined {
    const text = this.#query.get(name);
    if (text === null) return undefined;
    if (text === '' || text.length > 256) this.#problem(name, 'invalid_value', `${name} must be 1 to 256 characters`);
    return text;
  }

  /** Throws the collected problems, if any. */
  done(): void {
    if (this.#problems.length > 0) {
      throw new ApiError('invalid_request', `Invalid query: ${this.#problems.map((d) => d.message).join('; ')}.`, this.#problems);
    }
  }

  #problem(field: string, code: string, message: string): void {
    this.#problems.push({ field, code, message });
  }
}
