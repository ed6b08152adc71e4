/**
 * The layers hold: read from the source, so a new import that breaks one fails here with the file
 * that made it. The engine runs in browsers (MSW), so it may import only itself, the schemas and
 * libraries that do no I/O; the conformance suite is a black box that talks HTTP; the product
 * borrows nothing from the suite but through the CLI; and no folder's imports go round in circles.
 */
import { describe, expect, it } from 'vitest';
import { circlesOf, importsUnder, type FileImports } from './support/import-graph.js';

const ROOT = new URL('..', import.meta.url).pathname;

/** Packages the engine may import: pure computation, no I/O, browser-safe. */
const ENGINE_PACKAGES = [/^@noble\//, /^@scure\//, /^ajv$/, /^standardwebhooks$/];

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

  it('the rules can fail: a circle and a foreign import are found', () => {
    expect(circlesOf(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]]))).toEqual([['a', 'b', 'c', 'a']]);
    const reporters = src.find(({ file }) => file === 'src/cli/conformance.ts');
    expect(reporters?.local.some((path) => path.startsWith('conformance/'))).toBe(true);
  });
});
