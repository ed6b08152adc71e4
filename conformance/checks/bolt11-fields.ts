/**
 * The tagged fields of a BOLT11 invoice as written, counted: a decoder keeps one of several fields of
 * a type, so how many there are is read here from the bech32 data itself. Holds what BOLT 11 asks of
 * a writer: exactly one `p` and one `s`, exactly one of `d` and `h`, at most one `x`, `c`, `n`, `9`,
 * `m`, and the lengths BOLT 11 fixes (`p`, `s`, `h`: 52 words; `n`: 53).
 */
import { bech32 } from '@scure/base';

/** BOLT 11's field types by their 5-bit value (the character of the bech32 alphabet). */
const NAMES: Readonly<Record<number, string>> = { 1: 'p', 16: 's', 13: 'd', 23: 'h', 6: 'x', 24: 'c', 19: 'n', 5: '9', 27: 'm', 9: 'f', 3: 'r' };
const EXACTLY_ONE = ['p', 's'];
const AT_MOST_ONE = ['x', 'c', 'n', '9', 'm'];
const LENGTHS: Readonly<Record<string, number>> = { p: 52, s: 52, h: 52, n: 53 };

/** What is wrong with the tagged fields of `invoice` as BOLT 11 asks a writer to put them; empty when nothing is. */
export function taggedFieldProblems(invoice: string): string[] {
  const { words } = bech32.decode(invoice.toLowerCase() as `${string}1${string}`, false);
  // 7 words of timestamp, then the tagged fields, then 104 words of signature.
  const fields = words.slice(7, -104);
  const counts = new Map<string, number>();
  const problems: string[] = [];
  for (let at = 0; at < fields.length; ) {
    if (at + 3 > fields.length) return [`a tagged field is cut short at word ${7 + at}`];
    const name = NAMES[fields[at]!] ?? `type ${fields[at]}`;
    const length = fields[at + 1]! * 32 + fields[at + 2]!;
    if (at + 3 + length > fields.length) return [`the "${name}" field at word ${7 + at} runs past the signature`];
    counts.set(name, (counts.get(name) ?? 0) + 1);
    const wanted = LENGTHS[name];
    if (wanted !== undefined && length !== wanted) problems.push(`a "${name}" field of ${length} words (BOLT 11: ${wanted})`);
    at += 3 + length;
  }
  const count = (name: string) => counts.get(name) ?? 0;
  for (const name of EXACTLY_ONE) if (count(name) !== 1) problems.push(`${count(name)} "${name}" fields (BOLT 11: exactly one)`);
  if (count('d') + count('h') !== 1) problems.push(`${count('d')} "d" and ${count('h')} "h" fields (BOLT 11: exactly one of the two)`);
  for (const name of AT_MOST_ONE) if (count(name) > 1) problems.push(`${count(name)} "${name}" fields (BOLT 11: at most one)`);
  return problems;
}
