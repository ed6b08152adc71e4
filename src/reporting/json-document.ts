/**
 * What the JSON reports share: a `format`/`version` header before the run, two-space indentation
 * and a final newline (so two reports diff cleanly), and durations rounded to the microsecond.
 */

/** The JSON document: `format` and `version` first, then `body`'s keys in their order. */
export function jsonDocument(format: string, version: number, body: Record<string, unknown>): string {
  return `${JSON.stringify({ format, version, ...body }, null, 2)}\n`;
}

/** A duration in ms, rounded to the microsecond. */
export function roundMs(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
