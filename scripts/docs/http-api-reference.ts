/**
 * The HTTP API reference page, generated from the OpenAPI document (`lnpr openapi`): every
 * operation with its method, path, permission, parameters, body fields, answers and error codes,
 * grouped by tag in the document's order; then the webhook events.
 */
import { code, generatedPage, prose, table } from './markdown.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** Who may call an operation, by operationId: `public`, `key`, or a permission (`create`, `read`, `accounts`). */
export type AccessOf = (operationId: string) => string | undefined;

/** Every operation of `document` as `{ operationId, method, path }`. */
export function operationsOf(document: Json): Array<{ operationId: string; method: string; path: string; operation: Json }> {
  return Object.entries(document.paths as Json).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method] !== undefined).map((method) => ({ operationId: item[method].operationId as string, method: method.toUpperCase(), path, operation: item[method] as Json })),
  );
}

/** The page for `document`. */
export function httpApiReference(document: Json, accessOf: AccessOf): string {
  const resolve = (node: Json | undefined): Json => {
    let current = node ?? {};
    for (let hops = 0; typeof current.$ref === 'string' && hops < 10; hops += 1) {
      current = current.$ref.replace(/^#\//, '').split('/').reduce((value: Json, key: string) => value?.[key], document) ?? {};
    }
    return current;
  };
  const typeOf = (schema: Json | undefined): string => {
    if (schema === undefined) return '';
    if (typeof schema.$ref === 'string') return schema.$ref.split('/').pop()!;
    if (Array.isArray(schema.enum)) return schema.enum.map((value: unknown) => JSON.stringify(value)).join(' \\| ');
    if (schema.const !== undefined) return JSON.stringify(schema.const);
    for (const key of ['oneOf', 'anyOf']) if (Array.isArray(schema[key])) return schema[key].map(typeOf).join(' or ');
    if (schema.type === 'array') return `array of ${typeOf(schema.items) || 'values'}`;
    if (Array.isArray(schema.type)) return schema.type.join(' or ');
    return String(schema.type ?? (schema.properties ? 'object' : 'any'));
  };
  const rulesOf = (schema: Json): string => {
    const rules: string[] = [];
    const add = (key: string, words: string) => schema[key] !== undefined && rules.push(`${words} ${schema[key]}`);
    add('minimum', 'min');
    add('maximum', 'max');
    add('minLength', 'min length');
    add('maxLength', 'max length');
    add('minItems', 'min items');
    add('maxItems', 'max items');
    add('format', 'format');
    if (typeof schema.pattern === 'string') rules.push(`pattern \`${schema.pattern}\``);
    if (schema.default !== undefined) rules.push(`default ${JSON.stringify(schema.default)}`);
    return rules.join('; ');
  };
  /** Body fields, nested ones as `a.b` and `a[].b`, two levels deep. */
  const fieldsOf = (schema: Json, prefix = '', depth = 0): string[][] => {
    const object = resolve(schema);
    const required: string[] = object.required ?? [];
    return Object.entries((object.properties ?? {}) as Json).flatMap(([name, raw]) => {
      const field = resolve(raw as Json);
      const row = [code(`${prefix}${name}`), prose(typeOf(raw as Json), { cell: true }), required.includes(name) ? 'yes' : '', prose(rulesOf(field), { cell: true }), prose(String(field.description ?? (raw as Json).description ?? ''), { cell: true })];
      if (depth >= 1) return [row];
      if (field.properties) return [row, ...fieldsOf(field, `${prefix}${name}.`, depth + 1)];
      const items = field.type === 'array' ? resolve(field.items) : undefined;
      return items?.properties ? [row, ...fieldsOf(items, `${prefix}${name}[].`, depth + 1)] : [row];
    });
  };
  const permission = (operationId: string): string => {
    const access = accessOf(operationId);
    if (access === 'public') return 'none: no API key needed';
    if (access === 'key') return 'any valid API key';
    return access === undefined ? 'an API key' : `an API key with the \`${access}\` permission`;
  };

  const operations = operationsOf(document);
  const tags: string[] = [...(document.tags ?? []).map((tag: Json) => tag.name as string)];
  for (const { operation } of operations) for (const tag of operation.tags ?? ['Other']) if (!tags.includes(tag)) tags.push(tag);

  const sections = tags.map((tag) => {
    const tagInfo = (document.tags ?? []).find((entry: Json) => entry.name === tag);
    const inTag = operations.filter(({ operation }) => (operation.tags ?? ['Other']).includes(tag));
    if (inTag.length === 0) return '';
    const parts = [`## ${tag}`, ''];
    if (tagInfo?.description) parts.push(prose(tagInfo.description), '');
    for (const { operationId, method, path, operation } of inTag) {
      // A code span: a heading ending in `{id}` would be read as attributes.
      parts.push(`### ${code(`${method} ${path}`)}`, '');
      parts.push(`${prose(operation.summary ?? '')}. Operation \`${operationId}\`; permission: ${permission(operationId)}.`, '');
      if (operation.description) parts.push(prose(operation.description), '');
      const parameters = (operation.parameters ?? []).map(resolve);
      if (parameters.length > 0) {
        parts.push('**Parameters**', '', table(['name', 'in', 'required', 'type', 'what it is'], parameters.map((parameter: Json) => [code(parameter.name), parameter.in, parameter.required ? 'yes' : '', prose(typeOf(parameter.schema), { cell: true }), prose(String(parameter.description ?? ''), { cell: true })])), '');
      }
      const body = operation.requestBody?.content?.['application/json']?.schema;
      if (body !== undefined) {
        const fields = fieldsOf(body);
        parts.push(`**Body** (JSON${operation.requestBody.required ? '' : ', optional'}): ${prose(typeOf(body))}`, '');
        if (fields.length > 0) parts.push(table(['field', 'type', 'required', 'rules', 'what it is'], fields), '');
      }
      const answers = Object.entries((operation.responses ?? {}) as Json).map(([status, raw]) => {
        const response = resolve(raw as Json);
        const schema = response.content?.['application/json']?.schema;
        const codes: string[] = response['x-lnpr-error-codes'] ?? [];
        return [status, prose(typeOf(schema), { cell: true }), codes.map((name) => code(name)).join(', '), prose(String(response.description ?? ''), { cell: true })];
      });
      parts.push('**Answers**', '', table(['status', 'body', 'error codes', 'when'], answers), '');
    }
    return parts.join('\n');
  });

  const webhooks = Object.entries((document.webhooks ?? {}) as Json).map(([name, item]) => {
    const operation = (item as Json).post ?? {};
    return [code(name), prose(String(operation.description ?? operation.summary ?? ''), { cell: true })];
  });

  return generatedPage({
    title: 'HTTP API reference',
    order: 2,
    source: 'the OpenAPI document (lnpr openapi, GET /openapi.json)',
    body: [
      prose(String(document.info?.description ?? '').split('\n\n')[0] ?? ''),
      '',
      `The whole document: \`GET /openapi.json\` on a running sandbox, or \`lnpr openapi > openapi.json\` (OpenAPI ${document.openapi}). Error codes: [Errors and detail codes](./errors.md).`,
      '',
      ...sections,
      webhooks.length > 0 ? ['## Webhook events', '', 'Sent as `POST` to every webhook endpoint subscribed to their type, signed as Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`).', '', table(['event type', 'what it says'], webhooks)].join('\n') : '',
    ].join('\n'),
  });
}
