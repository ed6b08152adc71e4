/**
 * Prints the part graph of src/core (each folder, each file directly in it): every arrow with the
 * imports behind it, then any circle and any group of parts that reach each other. The rules
 * themselves are held by test/import-rules.test.ts; this shows what they look at.
 * Run: npx tsx scripts/core-parts.ts
 */
import { importsUnder, partCircles, partGraph, partOf } from '../test/support/import-graph.js';

const root = new URL('..', import.meta.url).pathname;
const files = importsUnder(root, 'src/core');
const parts = partGraph(files, 'src/core');

for (const [from, arrows] of [...parts].sort(([a], [b]) => a.localeCompare(b))) {
  for (const to of [...arrows.keys()].sort()) {
    const count = files.filter(({ file, local }) => partOf('src/core', file) === from && local.some((path) => partOf('src/core', path) === to)).length;
    console.log(`${from} -> ${to} (${count} file${count === 1 ? '' : 's'})`);
  }
}
const circles = partCircles(parts);
console.log(circles.length === 0 ? `\n${parts.size} parts, no circle.` : `\nCircles:\n${circles.join('\n')}`);
for (const group of reachingEachOther(parts)) console.log(`Parts that reach each other: ${group.join(', ')}`);

/** Strongly connected components of more than one part (Tarjan). */
function reachingEachOther(graph: ReadonlyMap<string, ReadonlyMap<string, string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const groups: string[][] = [];
  const visit = (part: string): void => {
    index.set(part, index.size);
    low.set(part, index.get(part)!);
    stack.push(part);
    for (const next of graph.get(part)?.keys() ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(part, Math.min(low.get(part)!, low.get(next)!));
      } else if (stack.includes(next)) low.set(part, Math.min(low.get(part)!, index.get(next)!));
    }
    if (low.get(part) !== index.get(part)) return;
    const group = stack.splice(stack.indexOf(part));
    if (group.length > 1) groups.push(group.sort());
  };
  for (const part of [...graph.keys()].sort()) if (!index.has(part)) visit(part);
  return groups;
}
