/**
 * The browser entry bundles with no Node built-ins: esbuild (`platform: 'browser'`) bundles
 * `lnpr-sandbox/msw`'s browser entry with everything under it (the engine, lowdb's browser
 * adapter, msw itself), and the check fails on any `node:` import or Node core module, whether
 * esbuild could not resolve it or something marked it external. Then the check is shown to fail.
 */
import { build, type BuildOptions, type Metafile } from 'esbuild';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const NODE_BUILTINS = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));

/** Whether an import specifier names a Node built-in (`node:fs`, `fs`, `fs/promises`, ...). */
function isNodeBuiltin(specifier: string): boolean {
  return specifier.startsWith('node:') || NODE_BUILTINS.has(specifier) || NODE_BUILTINS.has(specifier.split('/')[0]!);
}

/** Bundles `entryPoints` for browsers; returns every Node built-in it met, as `importer -> specifier`, and the metafile. */
async function nodeBuiltinsIn(entryPoints: string[], options: Partial<BuildOptions> = {}): Promise<{ found: string[]; metafile?: Metafile }> {
  try {
    const { metafile } = await build({ entryPoints, bundle: true, platform: 'browser', format: 'esm', write: false, metafile: true, logLevel: 'silent', outdir: 'out', ...options });
    const found = Object.entries(metafile!.inputs).flatMap(([importer, input]) =>
      input.imports.filter((imported) => isNodeBuiltin(imported.path)).map((imported) => `${importer} -> ${imported.path}`),
    );
    return { found, metafile: metafile! };
  } catch (error) {
    const errors = (error as { errors?: Array<{ text: string; location: { file: string } | null }> }).errors;
    if (!errors) throw error;
    // esbuild cannot resolve a built-in for the browser: `Could not resolve "node:fs"`.
    const found = errors.flatMap(({ text, location }) => {
      const specifier = /^Could not resolve "(.+)"$/.exec(text)?.[1];
      return specifier !== undefined && isNodeBuiltin(specifier) ? [`${location?.file ?? '?'} -> ${specifier}`] : [];
    });
    if (found.length === 0) throw error;
    return { found };
  }
}

const dir = mkdtempSync(join(tmpdir(), 'lnpr-bundle-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the browser bundle', () => {
  it('of lnpr-sandbox/msw (browser entry) and lnpr-sandbox (browser entry) holds no Node built-in', async () => {
    const { found, metafile } = await nodeBuiltinsIn(['src/msw/index.ts', 'src/index.ts']);
    expect(found).toEqual([]);
    const inputs = Object.keys(metafile!.inputs);
    // It did bundle what matters: the engine, the browser store, msw and lowdb's browser adapter.
    expect(inputs).toContain('src/core/engine.ts');
    expect(inputs).toContain('src/store/local-storage-store.ts');
    expect(inputs.some((input) => input.startsWith('node_modules/msw/'))).toBe(true);
    expect(inputs.some((input) => input.startsWith('node_modules/lowdb/lib/adapters/browser/'))).toBe(true);
    expect(inputs).not.toContain('src/lightning/signer.node.ts');
  });

  it('check fails when a built-in slips in, through the engine or a dependency, resolved or external', async () => {
    const engineWithFs = join(dir, 'engine-with-fs.ts');
    writeFileSync(engineWithFs, `export * from '${join(process.cwd(), 'src/msw/index.ts')}';\nexport { readFileSync } from 'node:fs';\n`);
    expect((await nodeBuiltinsIn([engineWithFs])).found).toEqual([expect.stringMatching(/engine-with-fs\.ts -> node:fs$/)]);

    const bareCrypto = join(dir, 'bare-crypto.ts');
    writeFileSync(bareCrypto, `import { createHash } from 'crypto';\nexport const hash = createHash;\n`);
    expect((await nodeBuiltinsIn([bareCrypto])).found).toEqual([expect.stringMatching(/bare-crypto\.ts -> crypto$/)]);

    // Marked external, esbuild builds fine: the metafile still shows it.
    expect((await nodeBuiltinsIn([engineWithFs], { external: ['node:*'] })).found).toEqual([expect.stringMatching(/engine-with-fs\.ts -> node:fs$/)]);
  });
});
