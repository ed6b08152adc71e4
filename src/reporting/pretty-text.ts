/**
 * What the reports for people share (`lnpr conformance`, `lnpr webhooks check`), so both commands
 * read alike: when to colour, how, and how a duration is written. Pure functions returning text.
 */

/** How text is rendered. */
export interface PrettyOptions {
  /** ANSI colours; off unless asked for. */
  color?: boolean;
}

/** The styles a report paints with. */
export type TextStyle = 'green' | 'red' | 'yellow' | 'cyan' | 'dim' | 'bold';

const ANSI: Readonly<Record<TextStyle, number>> = { green: 32, red: 31, yellow: 33, cyan: 36, dim: 2, bold: 1 };

/** `text` in `style` when colours are on; as it is otherwise. */
export function paint(text: string, style: TextStyle, options: PrettyOptions): string {
  return options.color ? `\u001b[${ANSI[style]}m${text}\u001b[0m` : text;
}

/** Colour only on a terminal, and never when NO_COLOR is set to something (https://no-color.org). */
export function shouldColor(stream: { isTTY?: boolean }, env: Record<string, string | undefined> = process.env): boolean {
  return stream.isTTY === true && (env.NO_COLOR === undefined || env.NO_COLOR === '');
}

/** `12 ms`, or `1.2 s` from a second on. */
export function formatDuration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}
