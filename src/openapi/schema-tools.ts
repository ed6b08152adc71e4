/**
 * Turns the JSON Schemas of `src/schemas` (the objects ajv validates with) into OpenAPI 3.1
 * component schemas without writing any of them again: a deep copy without `$id` (an `$id` would
 * move the base URI of the `$ref`s inside), in which every sub-schema that is itself a component
 * becomes a `$ref`, annotated with descriptions. JSON Schema 2020-12 is OpenAPI 3.1's dialect, so
 * nothing else needs converting. Browser-safe.
 */

/** A JSON Schema (or any part of the document) as plain JSON. */
export type JsonObject = { [key: string]: JsonValue };
/** A JSON value. */
export type JsonValue = string | number | boolean | null | JsonValue[] | JsonObject;

/** `#/components/schemas/<name>`. */
export function schemaRef(name: string): JsonObject {
  return { $ref: `#/components/schemas/${name}` };
}

/**
 * A copy of `schema` for `components.schemas`: `$id`s dropped at every depth, and each nested
 * object that is (by identity) one of `components` replaced by a `$ref` to it. The root itself
 * is never replaced.
 */
export function toComponentSchema(schema: object, components: ReadonlyMap<object, string>): JsonObject {
  return copy(schema, components, true) as JsonObject;
}

function copy(value: unknown, components: ReadonlyMap<object, string>, isRoot: boolean): JsonValue {
  if (value === null || typeof value !== 'object') return value as JsonValue;
  if (!isRoot && components.has(value)) return schemaRef(components.get(value)!);
  if (Array.isArray(value)) return value.map((item) => copy(item, components, false));
  const result: JsonObject = {};
  for (const [key, child] of Object.entries(value)) {
    if (key === '$id') continue;
    result[key] = copy(child, components, false);
  }
  return result;
}

/** What an annotation adds to a (sub)schema: a description, or any keywords (examples, a `$ref`...). */
export type Annotation = string | JsonObject;

/**
 * Adds annotations to `schema` in place. Keys are property paths: `''` is the schema itself,
 * `amount` its property, `error.code` a property of a property, `rules[]` the items of the array
 * property `rules`. A path that does not exist throws, so a renamed field cannot leave a stale
 * description behind.
 */
export function annotate(schema: JsonObject, annotations: Record<string, Annotation>): JsonObject {
  for (const [path, annotation] of Object.entries(annotations)) {
    const target = resolvePath(schema, path);
    Object.assign(target, typeof annotation === 'string' ? { description: annotation } : annotation);
  }
  return schema;
}

function resolvePath(schema: JsonObject, path: string): JsonObject {
  let node = schema;
  if (path === '') return node;
  for (const part of path.split('.')) {
    const isItems = part.endsWith('[]');
    const name = isItems ? part.slice(0, -2) : part;
    const properties = node.properties;
    const child = isObject(properties) ? properties[name] : undefined;
    if (!isObject(child)) throw new Error(`annotation path "${path}": no property "${name}"`);
    node = child;
    if (isItems) {
      if (!isObject(node.items)) throw new Error(`annotation path "${path}": "${name}" has no items schema`);
      node = node.items;
    }
  }
  return node;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Every `#/components/<kind>/<name>` a part of the document refers to. */
export function collectRefs(value: unknown, into: Set<string> = new Set()): Set<string> {
  if (Array.isArray(value)) {
    for (const item of value) collectRefs(item, into);
  } else if (isObject(value)) {
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string') into.add(child);
      else collectRefs(child, into);
    }
  }
  return into;
}
