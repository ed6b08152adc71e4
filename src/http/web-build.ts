/**
 * Builds the web pages (dashboard, pay page) from `src/web` with esbuild: one script and one
 * stylesheet per page, bundled for browsers, plus the HTML and the icon as they are. `npm run
 * build` writes them to `dist/web`; a server started from a checkout builds them in memory on
 * first use, so `npm start` alone shows current pages. Node only; esbuild (a dev dependency) is
 * loaded only when a build runs, so an installed package never needs it.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The built files by name (`dashboard.js`, `pay.html`, …). */
export type WebFiles = Map<string, Uint8Array>;

/** Files copied as they are: source path under `src/web` → name. */
const STATIC_FILES: Record<string, string> = {
  'dashboard/dashboard.html': 'dashboard.html',
  'pay/pay.html': 'pay.html',
  'shared/not-found.html': 'not-found.html',
  'shared/icon.svg': 'icon.svg',
};

/** Scripts and stylesheets: source path under `src/web` → output name without extension. */
const ENTRY_POINTS = [
  { in: 'dashboard/main.ts', out: 'dashboard' },
  { in: 'dashboard/dashboard.css', out: 'dashboard' },
  { in: 'pay/main.ts', out: 'pay' },
  { in: 'pay/pay.css', out: 'pay' },
];

/** Builds the pages from `sourceDir` (the `src/web` folder); nothing is written. */
export async function buildWebFiles(sourceDir: string): Promise<WebFiles> {
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: ENTRY_POINTS.map((entry) => ({ in: join(sourceDir, entry.in), out: entry.out })),
    outdir: '/',
    bundle: true,
    write: false,
    platform: 'browser',
    format: 'esm',
    target: ['es2022', 'chrome109', 'firefox115', 'safari16'],
    minify: true,
    legalComments: 'none',
    logLevel: 'silent',
  });
  const files: WebFiles = new Map();
  for (const output of result.outputFiles) files.set(output.path.split(/[\\/]/).pop()!, output.contents);
  for (const [source, name] of Object.entries(STATIC_FILES)) files.set(name, await readFile(join(sourceDir, source)));
  return files;
}
