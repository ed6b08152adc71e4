/**
 * Member names given twice in one JSON object. JSON.parse keeps the last, other parsers the first
 * or refuse the text (RFC 8259 §4: "the behavior of software that receives such an object is
 * unpredictable"), so an answer that repeats a name says two things: the suite reads the raw text.
 */

/** The names repeated within one object of `text`, which must be valid JSON (JSON.parse accepted it). */
export function repeatedNames(text: string): string[] {
  const repeated: string[] = [];
  // One entry per open container: the names seen in an object, null for an array.
  const open: Array<Set<string> | null> = [];
  let expectName = false;
  for (let at = 0; at < text.length; at++) {
    const char = text[at];
    if (char === '"') {
      let end = at + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      const names = open.at(-1);
      if (expectName && names) {
        const name = JSON.parse(text.slice(at, end + 1)) as string;
        if (names.has(name)) repeated.push(name);
        else names.add(name);
        expectName = false;
      }
      at = end;
    } else if (char === '{') {
      open.push(new Set());
      expectName = true;
    } else if (char === '[') {
      open.push(null);
      expectName = false;
    } else if (char === '}' || char === ']') {
      open.pop();
      expectName = false;
    } else if (char === ',') {
      expectName = open.at(-1) instanceof Set;
    }
  }
  return repeated;
}
