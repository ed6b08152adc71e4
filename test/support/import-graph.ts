/**
 * The import graph of the repository's TypeScript, read from the source text: every `import`,
 * `export … from` and dynamic `import()` of each file, relative ones resolved to files. Type-only
 * imports count: a circle of types is still a circle for a reader.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** One file's imports: relative ones as repository paths, packages by name. */
export interface FileImports {
  file: string;
  local: string[];
  packages: string[];
}

const IMPORT = /(?:^|[\s;])(?:import|export)\s[^'"`;]*?\sfrom\s+['"]([^'"]+)['"]|(?:^|[\s;(])import\s*\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s+['"]([^'"]+)['"]/gm;

/** The imports of every `.ts` file under `folder` (tests included), paths relative to `root`. */
export function importsUnder(root: string, folder: string): FileImports[] {
  return filesUnder(join(root, folder)).map((path) => {
    const text = readFileSync(path, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
    const local: string[] = [];
    const packages: string[] = [];
    for (const match of text.matchAll(IMPORT)) {
      const specifier = match[1] ?? match[2] ?? match[3]!;
      if (specifier.startsWith('.')) local.push(relative(root, resolveLocal(dirname(path), specifier)));
      else packages.push(specifier);
    }
    return { file: relative(root, path), local, packages };
  });
}

/** The circles of a graph, each as the files around it, the first repeated at the end. */
export function circlesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const circles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (file: string): void => {
    state.set(file, 'open');
    path.push(file);
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      if (state.get(next) === 'open') circles.push([...path.slice(path.indexOf(next)), next]);
      else if (state.get(next) === undefined) visit(next);
    }
    path.pop();
    state.set(file, 'done');
  };
  for (const file of [...graph.keys()].sort()) if (state.get(file) === undefined) visit(file);
  return circles;
}

function filesUnder(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return filesUnder(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

function resolveLocal(from: string, specifier: string): string {
  const path = resolve(from, specifier);
  for (const candidate of [path.replace(/\.js$/, '.ts'), path, `${path}.ts`, join(path, 'index.ts')]) {
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not this one
    }
  }
  return path;
}

/**
 * The graph of a folder's parts: each folder directly in it and each file directly in it (by its
 * name without `.ts`) is one part; an arrow from one part to another is one import or more, and
 * each arrow keeps the first import that makes it (`file -> path`), to name it in a report.
 */
export function partGraph(files: readonly FileImports[], folder: string): Map<string, Map<string, string>> {
  const graph = new Map<string, Map<string, string>>();
  for (const { file, local } of files) {
    const from = partOf(folder, file);
    if (from === undefined) continue;
    const arrows = graph.get(from) ?? new Map<string, string>();
    graph.set(from, arrows);
    for (const path of local) {
      const to = partOf(folder, path);
      if (to !== undefined && to !== from && !arrows.has(to)) arrows.set(to, `${file} -> ${path}`);
    }
  }
  return graph;
}

/** The part of `folder` a repository path belongs to; undefined outside the folder. */
export function partOf(folder: string, path: string): string | undefined {
  if (!path.startsWith(`${folder}/`)) return undefined;
  const rest = path.slice(folder.length + 1);
  const slash = rest.indexOf('/');
  return slash < 0 ? rest.replace(/\.ts$/, '') : rest.slice(0, slash);
}

/** The circles of a part graph, each named by its parts and the import behind every arrow. */
export function partCircles(parts: ReadonlyMap<string, ReadonlyMap<string, string>>): string[] {
  const graph = new Map([...parts].map(([part, arrows]) => [part, [...arrows.keys()].sort()]));
  return circlesOf(graph).map((circle) => {
    const arrows = circle.slice(1).map((to, index) => parts.get(circle[index]!)!.get(to)!);
    return `${circle.join(' -> ')} (${arrows.join('; ')})`;
  });
}
