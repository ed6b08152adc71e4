/**
 * `GET /docs/…`: the documentation site, as `npm run docs:build` (VitePress) built it into
 * `dist/docs`, served as static files. Public (no key: it holds nothing secret) and served with
 * or without `--no-controls`, like `/healthz`; the Host check and the origin policy apply as to
 * every request. A site not built answers 503 `docs_not_built`, naming the command that builds
 * it, never an empty page.
 *
 * Its own Content-Security-Policy: this origin only, plus exactly the inline scripts and style
 * attributes the build found in its pages, by their SHA-256 (`csp.json`, written by the build).
 * Files are read once, on first request, into memory (the site is under 2 MB); paths are
 * matched against that set, so no request can reach a file outside it.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, extname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../core/errors/errors.js';
import { errorResponse } from '../core/pipeline/handler.js';

/** Where the site's pages are served. */
export const DOCS_PATH = '/docs/';

const here = dirname(fileURLToPath(import.meta.url));
/** `dist/docs` seen from `src/http` (a checkout) and from `dist/src/http` (the built package). */
const CANDIDATES = [resolve(here, '../../dist/docs'), resolve(here, '../../docs')];

/** The built site of this installation: the first candidate that holds an `index.html`. */
export function defaultDocsDir(): string {
  return CANDIDATES.find((dir) => existsSync(join(dir, 'index.html'))) ?? CANDIDATES[0]!;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

interface SiteFile {
  body: Buffer;
  contentType: string;
  etag: string;
}

interface Site {
  files: Map<string, SiteFile>;
  csp: string;
}

/** The CSP of the site's pages, given the hashes its build found. */
export function docsCsp({ scriptHashes = [], styleHashes = [], styleAttributeHashes = [] }: { scriptHashes?: string[]; styleHashes?: string[]; styleAttributeHashes?: string[] }): string {
  return [
    "default-src 'self'",
    `script-src 'self' ${scriptHashes.join(' ')}`.trim(),
    `style-src 'self' ${styleHashes.join(' ')}`.trim(),
    `style-src-attr 'unsafe-hashes' ${styleAttributeHashes.join(' ')}`.trim(),
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Registers `/docs` and `/docs/*` on `app`, serving the site built in `dir`. */
export function registerDocsSite(app: FastifyInstance, dir: string = defaultDocsDir()): void {
  let loading: Promise<Site> | undefined;
  const site = () => {
    loading ??= loadSite(dir).catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };
  const methods = ['GET', 'HEAD'];
  app.route({ method: methods, url: '/docs', handler: (_request, reply) => reply.redirect(DOCS_PATH, 301) });
  app.route({
    method: methods,
    url: '/docs/*',
    handler: async (request: FastifyRequest, reply: FastifyReply) => {
      let loaded: Site;
      try {
        loaded = await site();
      } catch {
        const { status, headers, body } = errorResponse(new ApiError('docs_not_built'));
        return reply.code(status).headers({ ...headers, 'cache-control': 'no-store' }).send(body);
      }
      const name = fileName((request.params as { '*': string })['*']);
      const file = (name === undefined ? undefined : (loaded.files.get(name) ?? loaded.files.get(`${name}.html`))) ?? undefined;
      if (file === undefined) {
        const missing = loaded.files.get('404.html');
        reply.code(404).headers(pageHeaders(loaded.csp, 'no-cache'));
        return missing === undefined ? reply.type('text/plain; charset=utf-8').send('Not found') : reply.type(missing.contentType).send(missing.body);
      }
      // Hashed assets never change under their name; pages and the rest are revalidated.
      const immutable = name!.startsWith('assets/') && /\.[A-Za-z0-9_-]{8,}\.(?:js|css)$/.test(name!);
      reply.headers(pageHeaders(loaded.csp, immutable ? 'public, max-age=31536000, immutable' : 'no-cache')).header('etag', file.etag);
      if (request.headers['if-none-match'] === file.etag) return reply.code(304).send();
      return reply.type(file.contentType).send(file.body);
    },
  });
}

/** The site's file for a URL path under /docs/ (`''` and `x/` are their `index.html`), or undefined for one that cannot name a file. */
function fileName(path: string): string | undefined {
  const bare = path.split('?')[0]!;
  let decoded: string;
  try {
    decoded = decodeURIComponent(bare);
  } catch {
    return undefined;
  }
  if (decoded.includes('\0') || decoded.includes('\\') || decoded.split('/').some((part) => part === '..' || part === '.')) return undefined;
  return decoded === '' || decoded.endsWith('/') ? `${decoded}index.html` : decoded;
}

function pageHeaders(csp: string, cacheControl: string): Record<string, string> {
  return {
    'content-security-policy': csp,
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'cache-control': cacheControl,
  };
}

async function loadSite(dir: string): Promise<Site> {
  if (!existsSync(join(dir, 'index.html'))) throw new Error(`the documentation site is not built: ${dir} has no index.html`);
  const files = new Map<string, SiteFile>();
  for (const path of await filesUnder(dir)) {
    const contentType = CONTENT_TYPES[extname(path)];
    if (contentType === undefined) continue;
    const body = await readFile(path);
    files.set(relative(dir, path).split(sep).join('/'), { body, contentType, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` });
  }
  const hashes = files.get('csp.json');
  return { files, csp: docsCsp(hashes === undefined ? {} : (JSON.parse(hashes.body.toString('utf8')) as Parameters<typeof docsCsp>[0])) };
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(entries.map((entry) => (entry.isDirectory() ? filesUnder(join(dir, entry.name)) : Promise.resolve(entry.isFile() ? [join(dir, entry.name)] : []))));
  return nested.flat();
}
