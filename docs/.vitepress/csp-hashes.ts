/**
 * The Content-Security-Policy hashes of the built site: VitePress puts a few scripts inline in
 * every page (the colour scheme chosen before the page paints, the site's data). The sandbox's
 * CSP allows scripts from its own origin only, plus exactly these, by their SHA-256; the build
 * writes them to `csp.json` in the output folder, where the server reads them. Likewise the
 * values of inline `style` attributes (the code blocks' colours), in the pages and in the scripts
 * that render pages on navigation, for `style-src-attr 'unsafe-hashes'`: no other inline style runs.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The file, in the built site, listing the hashes. */
export const CSP_FILE = 'csp.json';

/** Writes `csp.json` into `outDir`: the `'sha256-…'` sources of every inline script and style of its pages. */
export function writeInlineScriptHashes(outDir: string): void {
  const scripts = new Set<string>();
  const styles = new Set<string>();
  const attributes = new Set<string>();
  for (const file of filesOf(outDir, '.js')) {
    const code = readFileSync(file, 'utf8');
    for (const [, value] of code.matchAll(/style=\\?"([^"\\<>]*)\\?"/g)) attributes.add(hashSource(value!));
    // Style elements a script makes from a constant (the colour-scheme switch's "no transitions" rule).
    for (const [, rule] of code.matchAll(/"([^"\\{}<>]+\{[^"\\{}<>]+:[^"\\{}<>]+\})"/g)) styles.add(hashSource(rule!));
  }
  for (const file of filesOf(outDir, '.html')) {
    const html = readFileSync(file, 'utf8');
    for (const [, attributes, body] of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)) {
      if (!/\bsrc=/.test(attributes!)) scripts.add(hashSource(body!));
    }
    for (const [, body] of html.matchAll(/<style\b[^>]*>([\s\S]*?)<\/style>/g)) styles.add(hashSource(body!));
    for (const [, value] of html.matchAll(/\sstyle="([^"]*)"/g)) attributes.add(hashSource(decodeEntities(value!)));
  }
  writeFileSync(join(outDir, CSP_FILE), `${JSON.stringify({ scriptHashes: [...scripts].sort(), styleHashes: [...styles].sort(), styleAttributeHashes: [...attributes].sort() }, null, 2)}\n`);
}

function hashSource(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

/** An attribute's value as the browser reads it (what its hash is taken of). */
function decodeEntities(text: string): string {
  return text.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

function filesOf(dir: string, extension: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return filesOf(path, extension);
    return name.endsWith(extension) ? [path] : [];
  });
}
