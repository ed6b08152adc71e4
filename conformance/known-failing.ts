/**
 * Known-failing files: the check ids an implementation is expected to fail (as in
 * connectrpc/conformance). One id per line, `#` starts a comment (a whole line or after the id),
 * blank lines are ignored; a JSON array of ids is accepted too. A listed check that passes fails
 * the run, so the list cannot go stale.
 */

/** A known-failing file that cannot be used; the message names the file and the line. */
export class KnownFailingFileError extends Error {
  override readonly name = 'KnownFailingFileError';
}

/** What a check id looks like: `area.name`, letters, digits and `. _ - : /`. */
const CHECK_ID = /^[A-Za-z0-9][A-Za-z0-9._:/-]*$/;

/** The ids in a known-failing file's text, in order, without duplicates. `source` names it in errors. */
export function parseKnownFailing(text: string, source = 'known-failing file'): string[] {
  const body = text.replace(/^\uFEFF/, '');
  if (body.trimStart().startsWith('[')) return parseJsonList(body, source);
  const ids: string[] = [];
  body.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.replace(/(^|\s)#.*$/, '').trim();
    if (line === '') return;
    if (!CHECK_ID.test(line)) {
      const why = /\s/.test(line) ? 'one check id per line' : 'a check id has letters, digits and . _ - : / only';
      throw new KnownFailingFileError(`${source} line ${index + 1}: "${excerpt(line)}" is not a check id (${why})`);
    }
    if (!ids.includes(line)) ids.push(line);
  });
  return ids;
}

function parseJsonList(body: string, source: string): string[] {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    throw new KnownFailingFileError(`${source}: not valid JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(value)) throw new KnownFailingFileError(`${source}: expected a JSON array of check ids`);
  const ids: string[] = [];
  value.forEach((item: unknown, index) => {
    if (typeof item !== 'string' || !CHECK_ID.test(item)) {
      throw new KnownFailingFileError(`${source}: item ${index} (${excerpt(JSON.stringify(item) ?? String(item))}) is not a check id`);
    }
    if (!ids.includes(item)) ids.push(item);
  });
  return ids;
}

function excerpt(text: string): string {
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}
