/**
 * Checks real HTTP answers against the OpenAPI document: finds the operation (path templates,
 * HEAD as GET), the response for the status (`404`, `2XX`, `default`, then the document's
 * `x-lnpr-responses` for unrouted paths, wrong methods and answers any request may get), the
 * content type, and validates the body with ajv (JSON Schema 2020-12, OpenAPI 3.1's dialect),
 * the required headers and `x-lnpr-error-codes`. Returns the problems, never throws on a bad answer.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

type Json = Record<string, any>;

/** One answer as a client saw it. */
export interface ObservedResponse {
  method: string;
  /** An absolute URL, or a path with an optional query. */
  url: string;
  status: number;
  headers: Headers | Record<string, string | string[] | undefined>;
  /** The body text ('' when none). */
  body: string;
}

/** What `check` found. */
export interface ResponseVerdict {
  /** `METHOD /path/{template} STATUS`; `METHOD (no route) STATUS` for a path the document lacks. */
  key: string;
  /** Empty when the answer conforms. */
  errors: string[];
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const BASE = 'urn:lnpr-sandbox:openapi';

/** Validates answers (and webhook deliveries) against one document. */
export class OpenApiResponses {
  readonly document: Json;
  readonly #ajv: Ajv2020;
  readonly #compiled = new WeakMap<object, ValidateFunction>();
  readonly #templates: Array<{ path: string; segments: string[]; literals: number }>;

  constructor(document: Json) {
    this.document = document;
    this.#ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
    this.#ajv.addSchema({ $id: BASE, $defs: absoluteRefs(document.components?.schemas ?? {}) });
    this.#templates = Object.keys(document.paths ?? {}).map((path) => {
      const segments = path.split('/').slice(1);
      return { path, segments, literals: segments.filter((segment) => !segment.startsWith('{')).length };
    });
  }

  /** Every operation of `paths`, as `METHOD /template`. */
  operations(): string[] {
    return Object.entries(this.document.paths as Json).flatMap(([path, item]) =>
      Object.keys(item as Json)
        .filter((key) => HTTP_METHODS.includes(key))
        .map((method) => `${method.toUpperCase()} ${path}`),
    );
  }

  /** The path template a request path falls under, as the engine's router matches it; undefined when none. */
  templateOf(path: string): string | undefined {
    const segments = path.split('/').slice(1);
    const matches = this.#templates.filter((template) => template.segments.length === segments.length && template.segments.every((expected, i) => segmentMatches(expected, segments[i]!)));
    matches.sort((a, b) => b.literals - a.literals);
    return matches[0]?.path;
  }

  /** Checks one answer. */
  check(response: ObservedResponse): ResponseVerdict {
    const method = response.method.toUpperCase();
    const path = pathOf(response.url);
    const template = this.templateOf(path);
    const extra = (this.document['x-lnpr-responses'] ?? {}) as Json;
    const anyRequest = (extra.anyRequest ?? {}) as Json;
    let key: string;
    let responses: Json;
    const errors: string[] = [];
    if (template === undefined) {
      key = `${method} (no route) ${response.status}`;
      responses = extra.noRoute ?? {};
    } else {
      const item = this.document.paths[template] as Json;
      const operation = (item[method.toLowerCase()] ?? (method === 'HEAD' ? item.get : undefined)) as Json | undefined;
      if (operation === undefined) {
        key = `${method} ${template} ${response.status}`;
        responses = extra.methodNotAllowed ?? {};
        if (response.status === 405) {
          const allowed = Object.keys(item).filter((name) => HTTP_METHODS.includes(name)).map((name) => name.toUpperCase()).sort();
          const allow = header(response.headers, 'allow') ?? '';
          const listed = allow.split(',').map((name) => name.trim()).filter(Boolean).sort();
          if (listed.join() !== allowed.join()) errors.push(`Allow is "${allow}", the document has ${allowed.join(', ')}`);
        }
      } else {
        key = `${method} ${template} ${response.status}`;
        responses = (operation.responses ?? {}) as Json;
      }
    }
    const found = pickResponse(responses, response.status) ?? pickResponse(anyRequest, response.status);
    if (found === undefined) {
      errors.push(`status ${response.status} is not documented for ${key.slice(0, key.lastIndexOf(' '))}`);
      return { key, errors };
    }
    const documented = this.#resolve(found);
    errors.push(...this.#checkHeaders(documented, response.headers));
    errors.push(...this.#checkBody(documented, response, method === 'HEAD'));
    return { key, errors };
  }

  /** Checks a webhook delivery against `webhooks[type]`: headers and body. */
  checkWebhook(type: string, headers: ObservedResponse['headers'], body: string): string[] {
    const operation = (this.document.webhooks?.[type] as Json | undefined)?.post as Json | undefined;
    if (operation === undefined) return [`no webhook "${type}" in the document`];
    const errors: string[] = [];
    for (const parameter of (operation.parameters ?? []) as Json[]) {
      const resolved = this.#resolve(parameter);
      if (resolved.in !== 'header') continue;
      const value = header(headers, resolved.name as string);
      if (value === undefined) {
        if (resolved.required) errors.push(`header ${resolved.name} is missing`);
        continue;
      }
      errors.push(...this.validate(resolved.schema as Json, value).map((error) => `header ${resolved.name}: ${error}`));
    }
    const media = pickMediaType((operation.requestBody as Json).content as Json, header(headers, 'content-type'));
    if (media === undefined) return [...errors, `content-type ${header(headers, 'content-type')} is not documented`];
    errors.push(...this.#validateText(media.schema as Json, body));
    return errors;
  }

  /** Validates `value` against a schema of the document (component `$ref`s resolve); returns the problems. */
  validate(schema: Json, value: unknown): string[] {
    let validate = this.#compiled.get(schema);
    if (validate === undefined) {
      validate = this.#ajv.compile(absoluteRefs(schema));
      this.#compiled.set(schema, validate);
    }
    if (validate(value)) return [];
    return (validate.errors ?? []).map((error) => `${error.instancePath || '(body)'} ${error.message ?? ''} ${JSON.stringify(error.params)}`.trim());
  }

  #checkHeaders(response: Json, headers: ObservedResponse['headers']): string[] {
    const errors: string[] = [];
    for (const [name, definition] of Object.entries((response.headers ?? {}) as Json)) {
      const resolved = this.#resolve(definition as Json);
      const value = header(headers, name);
      if (value === undefined) {
        if (resolved.required) errors.push(`header ${name} is missing`);
      } else if (resolved.schema) {
        errors.push(...this.validate(resolved.schema as Json, value).map((error) => `header ${name}: ${error}`));
      }
    }
    return errors;
  }

  #checkBody(response: Json, observed: ObservedResponse, isHead: boolean): string[] {
    const content = response.content as Json | undefined;
    if (isHead) return observed.body === '' ? [] : ['a HEAD answer has a body'];
    if (content === undefined) return observed.body === '' ? [] : [`the document has no body for this response, the answer has ${observed.body.length} bytes`];
    if (observed.body === '') return ['the answer has no body; the document has one'];
    const contentType = header(observed.headers, 'content-type');
    const media = pickMediaType(content, contentType);
    if (media === undefined) return [`content-type ${contentType ?? '(none)'} is not among ${Object.keys(content).join(', ')}`];
    const errors = this.#validateText(media.schema as Json, observed.body);
    const codes = response['x-lnpr-error-codes'] as string[] | undefined;
    if (codes !== undefined && errors.length === 0) {
      const code = (JSON.parse(observed.body) as Json).error?.code as string | undefined;
      if (code === undefined || !codes.includes(code)) errors.push(`error code ${code} is not among this response's ${codes.join(', ')}`);
    }
    return errors;
  }

  #validateText(schema: Json | undefined, text: string): string[] {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return [`the body is not JSON: ${text.slice(0, 80)}`];
    }
    return schema === undefined ? [] : this.validate(schema, value);
  }

  /** Follows `$ref`s to other parts of the document (responses, headers, parameters, examples). */
  #resolve(object: Json): Json {
    let current = object;
    for (let hops = 0; typeof current.$ref === 'string'; hops++) {
      if (hops > 10 || !current.$ref.startsWith('#/')) throw new Error(`cannot resolve ${current.$ref}`);
      current = current.$ref
        .slice(2)
        .split('/')
        .reduce((node: any, part: string) => node?.[part.replaceAll('~1', '/').replaceAll('~0', '~')], this.document) as Json;
      if (current === undefined) throw new Error(`dangling $ref ${object.$ref}`);
    }
    return current;
  }
}

/** The one-call form: the problems of one answer against `document` (empty when it conforms). */
export function validateResponse(
  document: Json,
  method: string,
  path: string,
  status: number,
  headers: ObservedResponse['headers'],
  body: string,
): string[] {
  return new OpenApiResponses(document).check({ method, url: path, status, headers, body }).errors;
}

/** A `fetch` that records every answer (and sends nothing differently), for `check`. */
export function recordingFetch(recorded: ObservedResponse[], base: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const request = input instanceof Request ? input : undefined;
    const method = init?.method ?? request?.method ?? 'GET';
    const url = request?.url ?? String(input);
    const response = await base(input, init);
    const body = await response.clone().text();
    recorded.push({ method, url, status: response.status, headers: response.headers, body });
    return response;
  };
}

function pickResponse(responses: Json, status: number): Json | undefined {
  return responses[String(status)] ?? responses[`${Math.floor(status / 100)}XX`] ?? responses.default;
}

function pickMediaType(content: Json, contentType: string | undefined): Json | undefined {
  if (contentType === undefined) return undefined;
  const essence = contentType.split(';', 1)[0]!.trim().toLowerCase();
  const [type] = essence.split('/');
  return (content[essence] ?? content[`${type}/*`] ?? content['*/*']) as Json | undefined;
}

function segmentMatches(expected: string, actual: string): boolean {
  if (!expected.startsWith('{')) return expected === actual;
  // As the engine's router: a parameter is a non-empty segment that decodes.
  try {
    return decodeURIComponent(actual) !== '';
  } catch {
    return false;
  }
}

function pathOf(url: string): string {
  const path = /^[a-z]+:\/\//i.test(url) ? new URL(url).pathname : url;
  const query = path.indexOf('?');
  return query === -1 ? path : path.slice(0, query);
}

function header(headers: ObservedResponse['headers'], name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const value = Object.entries(headers).find(([key]) => key.toLowerCase() === name.toLowerCase())?.[1];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** A copy in which `#/components/schemas/X` refers to the schema registered with ajv. */
function absoluteRefs<T>(value: T): T {
  if (Array.isArray(value)) return value.map(absoluteRefs) as T;
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, child]) => [
      key,
      key === '$ref' && typeof child === 'string' && child.startsWith('#/components/schemas/') ? `${BASE}#/$defs/${child.slice('#/components/schemas/'.length)}` : absoluteRefs(child),
    ]),
  ) as T;
}
