/**
 * Where the served pages come from: built from `src/web` in memory when the server runs from a
 * checkout (so `npm start` shows the current source, no build step first), or read from
 * `dist/web` when installed (the package ships no source and no esbuild). Either way once, on
 * the first request that needs them: servers that never show a page never pay for a build.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildWebFiles, type WebFiles } from './web-build.js';

/** One file ready to send. */
export interface WebAsset {
  body: Buffer;
  contentType: string;
  /** A strong validator of `body`, for `If-None-Match`. */
  etag: string;
}

/** The pages' files by name (`dashboard.html`, `pay.js`, …). */
export interface WebAssets {
  /** The file, or undefined when there is none by that name. Rejects when the pages cannot be had at all. */
  get(name: string): Promise<WebAsset | undefined>;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

const here = dirname(fileURLToPath(import.meta.url));
/** `src/web` beside this file when it runs from source (tsx, tests). */
export const WEB_SOURCE_DIR = resolve(here, '../web');
/** `dist/web` when this file runs compiled, from `dist/src/http`. */
export const WEB_BUILT_DIR = resolve(here, '../../web');

/** The pages of this installation: a fresh build from source if there is source, else the built ones. */
export function defaultWebAssets(): WebAssets {
  return existsSync(join(WEB_SOURCE_DIR, 'dashboard', 'main.ts')) ? webAssetsFrom(() => buildWebFiles(WEB_SOURCE_DIR)) : builtWebAssets(WEB_BUILT_DIR);
}

/** The pages as `npm run build` wrote them into `dir`. */
export function builtWebAssets(dir: string): WebAssets {
  return webAssetsFrom(() => readBuilt(dir));
}

/** Assets from `load`, called once, on first use (a failed load is retried on the next request). */
export function webAssetsFrom(load: () => Promise<WebFiles>): WebAssets {
  let loading: Promise<Map<string, WebAsset>> | undefined;
  return {
    async get(name) {
      loading ??= load().then(toAssets, (error: unknown) => {
        loading = undefined;
        throw error;
      });
      return (await loading).get(name);
    },
  };
}

function toAssets(files: WebFiles): Map<string, WebAsset> {
  const assets = new Map<string, WebAsset>();
  for (const [name, contents] of files) {
    const contentType = CONTENT_TYPES[extname(name)];
    if (contentType === undefined) continue;
    const body = Buffer.from(contents);
    assets.set(name, { body, contentType, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` });
  }
  return assets;
}

async function readBuilt(dir: string): Promise<WebFiles> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    throw new Error(`the web pages are not built: ${dir} is missing (run npm run build)`);
  }
  const files: WebFiles = new Map();
  for (const name of names) files.set(name, await readFile(join(dir, name)));
  return files;
}
