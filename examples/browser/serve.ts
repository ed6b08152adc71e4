/**
 * Builds the example page's script (esbuild, for browsers: `main.ts` -> `dist/app.js`) and serves
 * this folder over HTTP. Used by the browser test, and by hand:
 *
 *   npx tsx examples/browser/serve.ts [port]      # then open the URL it prints
 *
 * Node only. A service worker needs a secure context: http://127.0.0.1 and localhost count as one.
 */
import { build } from 'esbuild';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** This folder, served as the site's root. */
export const EXAMPLE_DIR = fileURLToPath(new URL('.', import.meta.url));

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

/** Bundles `main.ts` with everything it imports (msw, the sandbox engine, the QR encoder) into `dist/app.js`. */
export async function buildExample(): Promise<void> {
  await build({
    entryPoints: [join(EXAMPLE_DIR, 'main.ts')],
    outfile: join(EXAMPLE_DIR, 'dist', 'app.js'),
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    sourcemap: true,
    logLevel: 'warning',
  });
}

/** A running static server. */
export interface ExampleServer {
  url: string;
  close(): Promise<void>;
}

/** Serves this folder on `host:port` (port 0: any free one); `/` is `index.html`. */
export async function serveExample(port = 0, host = '127.0.0.1'): Promise<ExampleServer> {
  const server = createServer(async (request, response) => {
    const path = new URL(request.url ?? '/', 'http://example.invalid').pathname;
    const file = normalize(join(EXAMPLE_DIR, path === '/' ? 'index.html' : decodeURIComponent(path)));
    const type = CONTENT_TYPES[extname(file)];
    // Only files of this folder, and only the kinds the page is made of.
    if (!file.startsWith(EXAMPLE_DIR.endsWith(sep) ? EXAMPLE_DIR : EXAMPLE_DIR + sep) || type === undefined) {
      response.writeHead(404).end();
      return;
    }
    try {
      const body = await readFile(file);
      response.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' }).end(body);
    } catch {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${bound}/`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await buildExample();
  const { url } = await serveExample(Number(process.argv[2] ?? 5180));
  console.log(`example page: ${url}  (Ctrl-C stops it)`);
}
