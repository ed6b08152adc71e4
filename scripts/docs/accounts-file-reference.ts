/** The accounts-file reference page: every field of the accounts file's JSON Schema. */
import { generatedPage, prose, table } from './markdown.js';

type Schema = Record<string, unknown> & { properties?: Record<string, Schema>; items?: Schema; required?: readonly string[] };

/** One row per field, `accounts[].webhooks[].url` style, from `schema` (the accounts file's). */
export function accountsFileFields(schema: Schema): Array<{ path: string; type: string; required: boolean; rules: string; description: string }> {
  const rows: Array<{ path: string; type: string; required: boolean; rules: string; description: string }> = [];
  const walk = (node: Schema, prefix: string) => {
    for (const [name, field] of Object.entries(node.properties ?? {})) {
      const path = `${prefix}${name}`;
      rows.push({ path, type: typeOf(field), required: (node.required ?? []).includes(name), rules: rulesOf(field), description: String(field.description ?? '') });
      if (field.properties !== undefined) walk(field, `${path}.`);
      // Rules have a page of their own (scenarios); only the accounts file's own lists are opened.
      if (field.type === 'array' && field.items?.properties !== undefined && name !== 'rules') walk(field.items, `${path}[].`);
    }
  };
  walk(schema, '');
  return rows;
}

function typeOf(field: Schema): string {
  if (Array.isArray(field.enum)) return `one of ${(field.enum as unknown[]).map((value) => `\`${String(value)}\``).join(', ')}`;
  if (field.type === 'array') {
    const items = field.items ?? {};
    return Array.isArray(items.enum) ? `list of ${(items.enum as unknown[]).map((value) => `\`${String(value)}\``).join(', ')}` : `list of ${items.type === 'object' ? 'objects' : String(items.type ?? 'values')}`;
  }
  return String(field.type ?? 'value');
}

function rulesOf(field: Schema): string {
  const rules: string[] = [];
  if (typeof field.pattern === 'string') rules.push(`pattern \`${field.pattern}\``);
  if (typeof field.maxLength === 'number') rules.push(`at most ${field.maxLength} characters`);
  if (typeof field.minItems === 'number') rules.push(`at least ${field.minItems} item${field.minItems === 1 ? '' : 's'}`);
  if (field.uniqueItems === true) rules.push('no repeats');
  return rules.join('; ');
}

/** The page for `schema`. */
export function accountsFileReference(schema: Schema): string {
  const rows = accountsFileFields(schema).map((row) => [`\`${row.path}\``, row.type, row.required ? 'yes' : '', prose(row.rules, { cell: true }), prose(row.description, { cell: true })]);
  return generatedPage({
    title: 'Accounts file',
    order: 4,
    source: "the accounts file's JSON Schema (src/schemas/accounts-config.ts)",
    body: [
      'The accounts and API keys a sandbox starts with: `fixtures/accounts.json` by default, your own with',
      '`lnpr serve --config FILE`. The file is checked against this schema at start; a file that breaks it',
      'stops the start with a message naming the field. Fields not listed here are refused.',
      '',
      table(['field', 'type', 'required', 'rules', 'what it is'], rows),
      '',
      'An `nwc` account needs `walletNodeKey` or `nwcUrl`; a key with `create` or `read` needs `account`.',
    ].join('\n'),
  });
}
