/**
 * `paths`: the route table seen through OpenAPI. A route's declaration gives its operation the
 * method, path, `operationId`, security, parameters and their schemas, request body, answer and
 * error responses; its prose (`operations/`) gives only words and examples. A route without
 * prose, prose without a route, a schema that is no component, and prose for something the route
 * does not have (a parameter, a body, an answer body, an error code) all throw: a new route
 * cannot go undocumented, and no prose can describe what is not there. Browser-safe.
 */
import { errorCodesOf, type AnyRoute } from '../core/pipeline/route.js';
import type { Components } from './components.js';
import { errorResponses } from './error-responses.js';
import type { OperationProse, ProseRecord } from './operations/index.js';
import { schemaRef, type JsonObject } from './schema-tools.js';

/** `paths` for `routes`, worded by `prose`, with schemas from `components` and tags among `tags`. */
export function pathsOf(routes: ReadonlyArray<AnyRoute<unknown>>, prose: ProseRecord, components: Components, tags: ReadonlySet<string>): Record<string, JsonObject> {
  const paths: Record<string, JsonObject> = {};
  for (const route of routes) {
    const words = prose[route.name];
    if (words === undefined) throw new Error(`OpenAPI: the route ${route.name} (${route.method} ${route.path}) has no prose in src/openapi/operations/`);
    const item = (paths[route.path.replace(/:(\w+)/g, '{$1}')] ??= {});
    const method = route.method.toLowerCase();
    if (item[method] !== undefined) throw new Error(`OpenAPI: two routes are ${route.method} ${route.path}`);
    item[method] = operationOf(route, words, components, tags);
  }
  const named = new Set(routes.map(({ name }) => name));
  const strays = Object.keys(prose).filter((name) => !named.has(name));
  if (strays.length > 0) throw new Error(`OpenAPI: prose describes operations no route has: ${strays.join(', ')}`);
  return paths;
}

function operationOf(route: AnyRoute<unknown>, words: OperationProse, components: Components, tags: ReadonlySet<string>): JsonObject {
  const fail = (problem: string): never => {
    throw new Error(`OpenAPI: ${route.name} (${route.method} ${route.path}): ${problem}`);
  };
  const refTo = (schema: object, what: string): JsonObject => {
    const name = components.nameOf(schema);
    return name === undefined ? fail(`its ${what} schema is no component (add it to the sources of src/openapi/components.ts)`) : schemaRef(name);
  };
  if (!tags.has(words.tag)) fail(`its tag "${words.tag}" is not one of the document's`);

  const parameters = [...pathParameters(route, words, fail), ...queryParameters(route, words, fail), ...(words.headerParameters ?? []).map(toJson)];

  if (words.bodyExamples !== undefined && route.body === undefined) fail('its prose has body examples, and it takes no body');
  const requestBody = route.body
    ? { required: !route.body.optional, content: { 'application/json': { schema: refTo(route.body.schema as object, 'body'), ...examplesOf(words.bodyExamples) } } }
    : undefined;

  const { answer } = words;
  if (answer.examples !== undefined && route.answer.schema === undefined) fail('its prose has answer examples, and its answer has no body');
  const success: JsonObject = {
    description: answer.description,
    ...(answer.headers ? { headers: toJson(answer.headers) } : {}),
    ...(route.answer.schema !== undefined ? { content: { 'application/json': { schema: refTo(route.answer.schema as object, 'answer'), ...examplesOf(answer.examples) } } } : {}),
  };

  const codes = errorCodesOf(route);
  const strayExamples = Object.keys(words.errorExamples ?? {}).filter((code) => !(codes as string[]).includes(code));
  if (strayExamples.length > 0) fail(`its prose has examples of codes it does not answer with: ${strayExamples.join(', ')}`);
  const errors = errorResponses(codes, words.errorExamples);
  const responses: Record<string, JsonObject> = { [String(route.answer.status)]: success };
  for (const [status, response] of [...Object.entries(words.moreResponses ?? {}).map(([key, value]) => [key, toJson(value)] as const), ...Object.entries(errors)]) {
    if (responses[status] !== undefined) fail(`two answers have the status ${status}`);
    responses[status] = response;
  }

  return {
    operationId: route.name,
    tags: [words.tag],
    summary: words.summary,
    ...(words.description ? { description: words.description } : {}),
    ...(route.access === 'public' ? { security: [] } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses: Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b))),
  };
}

/** The parameters of the path pattern, each described by the prose. */
function pathParameters(route: AnyRoute<unknown>, words: OperationProse, fail: (problem: string) => never): JsonObject[] {
  const names = [...route.path.matchAll(/:(\w+)/g)].map((match) => match[1]!);
  const described = Object.keys(words.pathParameters ?? {});
  const strays = described.filter((name) => !names.includes(name));
  if (strays.length > 0) fail(`its prose describes path parameters it does not have: ${strays.join(', ')}`);
  return names.map((name) => ({
    name,
    in: 'path',
    required: true,
    description: words.pathParameters?.[name] ?? fail(`the path parameter ${name} has no description`),
    schema: { type: 'string', minLength: 1 },
  }));
}

/** The query parameters the route declares, with their schemas; described by the prose (or the declaration). */
function queryParameters(route: AnyRoute<unknown>, words: OperationProse, fail: (problem: string) => never): JsonObject[] {
  const declared = Object.entries(route.query?.schema.properties ?? {});
  const strays = Object.keys(words.queryParameters ?? {}).filter((name) => !declared.some(([known]) => known === name));
  if (strays.length > 0) fail(`its prose describes query parameters it does not take: ${strays.join(', ')}`);
  return declared.map(([name, { description, ...schema }]) => ({
    name,
    in: 'query',
    required: false,
    description: words.queryParameters?.[name] ?? description ?? fail(`the query parameter ${name} has no description`),
    schema: toJson(schema),
  }));
}

/** `{examples: {name: {value}}}` for named examples; nothing for none. */
function examplesOf(examples: Readonly<Record<string, unknown>> | undefined): JsonObject {
  if (examples === undefined) return {};
  return { examples: Object.fromEntries(Object.entries(examples).map(([name, value]) => [name, { value: toJson(value) }])) };
}

function toJson(value: unknown): JsonObject {
  return JSON.parse(JSON.stringify(value)) as JsonObject;
}
