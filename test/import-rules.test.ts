/**
 * The layers hold: read from the source, so a new import that breaks one fails here with the file
 * that made it. The engine runs in browsers (MSW), so it may import only itself, the schemas and
 * libraries that do no I/O; the conformance suite is a black box that talks HTTP; the product
 * borrows nothing from the suite but through the CLI; and no folder's imports go round in circles.
 * Inside the engine, its parts (each folder of src/core, each file directly in it) go one way:
 * each imports only parts of lower layers, in the order CORE_LAYERS writes down and ARCHITECTURE.md
 * draws.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { circlesOf, importsUnder, partCircles, partGraph, type FileImports } from './support/import-graph.js';

const ROOT = new URL('..', import.meta.url).pathname;

/** Packages the engine may import: pure computation, no I/O, browser-safe. */
const ENGINE_PACKAGES = [/^@noble\//, /^@scure\//, /^ajv$/, /^standardwebhooks$/];

/**
 * The layers of src/core, bottom first: a part imports only parts of layers below its own, never
 * one of its own layer or above. ARCHITECTURE.md draws this list (top first) with a sentence each.
 */
const CORE_LAYERS: readonly (readonly string[])[] = [
  ['settings', 'listeners', 'secret'],
  ['errors'],
  ['ports', 'store'],
  ['ids', 'random'],
  ['accounts'],
  ['pipeline'],
  ['payments', 'resilience'],
  ['due'],
  ['webhooks'],
  ['events'],
  ['wallets'],
  ['account-data'],
  ['routes'],
  ['engine'],
];

/** The arrows of a part graph that do not go down the layers, each with the import behind it. */
function layerBreaches(parts: ReadonlyMap<string, ReadonlyMap<string, string>>, layers: readonly (readonly string[])[]): string[] {
  const layerOf = new Map(layers.flatMap((names, layer) => names.map((name) => [name, layer] as const)));
  return [...parts].flatMap(([from, arrows]) =>
    [...arrows]
      .filter(([to]) => layerOf.has(from) && layerOf.has(to) && layerOf.get(to)! >= layerOf.get(from)!)
      .map(([to, why]) => `${from} -> ${to} (${why})`),
  );
}

const src = importsUnder(ROOT, 'src');
const conformance = importsUnder(ROOT, 'conformance');

describe('import rules', () => {
  it('src/core imports only itself, src/schemas and browser-safe libraries without I/O', () => {
    const engine = src.filter(({ file }) => file.startsWith('src/core/') && !file.endsWith('.test.ts'));
    expect(engine.length).toBeGreaterThan(30);
    const offending = engine.flatMap(({ file, local, packages }) => [
      ...local.filter((path) => !path.startsWith('src/core/') && !path.startsWith('src/schemas/')).map((path) => `${file} -> ${path}`),
      ...packages.filter((name) => !ENGINE_PACKAGES.some((allowed) => allowed.test(name))).map((name) => `${file} -> ${name}`),
    ]);
    expect(offending).toEqual([]);
  });

  it('nothing in src/ but the CLI imports conformance/', () => {
    const offending = src
      .filter(({ file }) => !file.startsWith('src/cli/'))
      .flatMap(({ file, local }) => local.filter((path) => path.startsWith('conformance/')).map((path) => `${file} -> ${path}`));
    expect(offending).toEqual([]);
  });

  // The suite's own tests (conformance/test/, *.test.ts) build faulty implementations on top of
  // our server to prove each check can fail; the suite itself ships and runs without src/.
  it('conformance/ imports nothing from src/ (its tests aside)', () => {
    const suite = conformance.filter(({ file }) => !file.startsWith('conformance/test/') && !file.endsWith('.test.ts'));
    expect(suite.length).toBeGreaterThan(20);
    const offending = suite.flatMap(({ file, local }) => local.filter((path) => !path.startsWith('conformance/')).map((path) => `${file} -> ${path}`));
    expect(offending).toEqual([]);
  });

  it.each([
    ['src', src],
    ['conformance', conformance],
  ])('no import circle in %s/', (_folder, files: FileImports[]) => {
    const circles = circlesOf(new Map(files.map(({ file, local }) => [file, local])));
    expect(circles.map((circle) => circle.join(' -> '))).toEqual([]);
  });

  // Tests count: a test beside a part imports as its part does.
  const coreParts = partGraph(src, 'src/core');

  it('the parts of src/core form no circle, direct or through a chain', () => {
    expect(coreParts.size).toBeGreaterThan(12);
    expect(partCircles(coreParts)).toEqual([]);
  });

  it('each part of src/core imports only parts of lower layers (CORE_LAYERS)', () => {
    expect([...coreParts.keys()].sort()).toEqual(CORE_LAYERS.flat().sort());
    expect(layerBreaches(coreParts, CORE_LAYERS)).toEqual([]);
  });

  it('ARCHITECTURE.md draws CORE_LAYERS, top first', () => {
    const text = readFileSync(`${ROOT}ARCHITECTURE.md`, 'utf8');
    const diagram = /## The layers of src\/core\n[\s\S]*?```text\n([\s\S]*?)```/.exec(text)?.[1] ?? '';
    const drawn = diagram
      .split('\n')
      .map((line) => line.replace(/[←#].*$/, '').trim())
      .filter((line) => /^[a-z]/.test(line))
      .map((line) => line.split(/\s+/).filter((word) => /^[a-z-]+$/.test(word)));
    expect(drawn).toEqual([...CORE_LAYERS].reverse());
  });

  it('the part rules can fail: a circle through a chain and an arrow up the layers are named', () => {
    const files = [
      { file: 'x/a/one.ts', local: ['x/b/two.ts'], packages: [] },
      { file: 'x/b/two.ts', local: ['x/c.ts'], packages: [] },
      { file: 'x/c.ts', local: ['x/a/three.ts'], packages: [] },
    ];
    const parts = partGraph(files, 'x');
    expect(partCircles(parts)).toEqual(['a -> b -> c -> a (x/a/one.ts -> x/b/two.ts; x/b/two.ts -> x/c.ts; x/c.ts -> x/a/three.ts)']);
    expect(layerBreaches(parts, [['a'], ['b'], ['c']])).toEqual(['a -> b (x/a/one.ts -> x/b/two.ts)', 'b -> c (x/b/two.ts -> x/c.ts)']);
  });

  it('the rules can fail: a circle and a foreign import are found', () => {
    expect(circlesOf(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]]))).toEqual([['a', 'b', 'c', 'a']]);
    const reporters = src.find(({ file }) => file === 'src/cli/conformance.ts');
    expect(reporters?.local.some((path) => path.startsWith('conformance/'))).toBe(true);
  });
});
