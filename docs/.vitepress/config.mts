/**
 * The documentation site (VitePress 1.x, which runs on Node 20): the pages of `docs/`, served by
 * the sandbox at `/docs/` and built into `dist/docs` (`npm run docs:build`, run by `prepare` and
 * `npm run build`). Offline by construction: no web font, no remote asset, local search; plain
 * `.html` links, so any static server (the sandbox's) serves every page as a file. The build
 * writes the hashes of its inline scripts for the sandbox's Content-Security-Policy
 * (`csp-hashes.ts`, called from `buildEnd`).
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitepress';
import { writeInlineScriptHashes } from './csp-hashes.js';
import { unlinkOutsideLinks } from './outside-links.js';
import { sidebarOf } from './sidebar.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const hasHome = existsSync(`${root}/index.md`);

export default defineConfig({
  title: 'lnpr-sandbox',
  description: 'Offline sandbox and conformance kit for the Lightning payment-request API',
  base: '/docs/',
  outDir: '../dist/docs',
  cleanUrls: false,
  // The page-hash map goes into a script file rather than an inline script (fewer hashes in the CSP).
  metaChunk: true,
  lastUpdated: false,
  // Until the site has its own home page, the reference overview is the home page.
  rewrites: hasHome ? {} : { 'reference/index.md': 'index.md' },
  srcExclude: ['**/README.md'],
  markdown: { config: unlinkOutsideLinks },
  // No favicon request (the browser would ask the sandbox for /favicon.ico, outside the site).
  head: [
    ['meta', { name: 'referrer', content: 'no-referrer' }],
    ['link', { rel: 'icon', href: 'data:,' }],
  ],
  themeConfig: {
    nav: [
      { text: 'Reference', link: hasHome ? '/reference/' : '/' },
      { text: 'API', link: '/reference/http-api.html' },
    ],
    // Without a home page of its own, the reference overview is the home page (`/`).
    sidebar: sidebarOf(root).map((section) => ({ ...section, items: section.items?.map((item) => (!hasHome && item.link === '/reference/' ? { ...item, link: '/' } : item)) })),
    search: { provider: 'local' },
    outline: { level: [2, 3] },
  },
  buildEnd: (site) => writeInlineScriptHashes(site.outDir),
});
