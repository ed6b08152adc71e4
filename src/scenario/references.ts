/**
 * References in scenario steps: `${name}` or `${name.field.sub}` stands for part of the response
 * body of an earlier step named with `as: name`; `${keys.name}` for a named API key. A string that
 * is exactly one reference takes the referenced value with its type (so an amount stays a number);
 * references inside a longer string are interpolated as text.
 */

/** One reference anywhere in a string. */
const REFERENCE = /\$\{([^}]*)\}/g;
/** What may stand between the braces: a name, then dotted fields (array indexes are fields too). */
const EXPRESSION = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_-]+)*$/;
/** A string that is one reference and nothing else. */
const WHOLE = /^\$\{([^}]*)\}$/;

/** What references resolve against. */
export interface ReferenceScope {
  /** Response bodies of earlier steps, by their `as` name. */
  results: Readonly<Record<string, unknown>>;
  /** Named API keys, `default` included. */
  keys: Readonly<Record<string, string>>;
}

/** A reference that names nothing: the step fails with this message. */
export class UnresolvedReferenceError extends Error {
  override readonly name = 'UnresolvedReferenceError';
}

/** The malformed references in `value` (e.g. `${ order id }`), for the loader to reject early. */
export function malformedReferences(value: unknown): string[] {
  const found: string[] = [];
  visitStrings(value, (text) => {
    for (const match of text.matchAll(REFERENCE)) if (!EXPRESSION.test(match[1]!)) found.push(match[0]);
  });
  return found;
}

/** `value` with every reference replaced; throws `UnresolvedReferenceError` for one that names nothing. */
export function resolveReferences<T>(value: T, scope: ReferenceScope): T {
  return resolve(value, scope) as T;
}

function resolve(value: unknown, scope: ReferenceScope): unknown {
  if (typeof value === 'string') return resolveString(value, scope);
  if (Array.isArray(value)) return value.map((item) => resolve(item, scope));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, resolve(item, scope)]));
  }
  return value;
}

function resolveString(text: string, scope: ReferenceScope): unknown {
  const whole = WHOLE.exec(text);
  if (whole) return lookUp(whole[1]!, scope);
  return text.replace(REFERENCE, (_match, expression: string) => asText(lookUp(expression, scope)));
}

function lookUp(expression: string, scope: ReferenceScope): unknown {
  const reference = `\${${expression}}`;
  if (!EXPRESSION.test(expression)) throw new UnresolvedReferenceError(`malformed reference ${reference}`);
  const [name, ...fields] = expression.split('.') as [string, ...string[]];
  let value: unknown;
  if (name === 'keys') {
    value = scope.keys;
  } else if (Object.hasOwn(scope.results, name)) {
    value = scope.results[name];
  } else {
    const known = Object.keys(scope.results);
    throw new UnresolvedReferenceError(
      `unknown reference ${reference}: no earlier step is named "${name}" (${known.length > 0 ? `named so far: ${known.join(', ')}` : 'no step named so far'}; name one with \`as: ${name}\`)`,
    );
  }
  let path = name;
  for (const field of fields) {
    const holder = value;
    if (holder === null || typeof holder !== 'object' || !Object.hasOwn(holder, field)) {
      const has = holder !== null && typeof holder === 'object' ? Object.keys(holder) : [];
      throw new UnresolvedReferenceError(
        `unknown reference ${reference}: ${path} has no field "${field}"${has.length > 0 ? ` (it has: ${has.join(', ')})` : ` (it is ${JSON.stringify(holder) ?? 'undefined'})`}`,
      );
    }
    value = (holder as Record<string, unknown>)[field];
    path = `${path}.${field}`;
  }
  return value;
}

/** A value as it reads inside a longer string: strings as they are, anything else as JSON. */
function asText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function visitStrings(value: unknown, visit: (text: string) => void): void {
  if (typeof value === 'string') visit(value);
  else if (Array.isArray(value)) value.forEach((item) => visitStrings(item, visit));
  else if (value !== null && typeof value === 'object') Object.values(value).forEach((item) => visitStrings(item, visit));
}
