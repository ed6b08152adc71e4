/**
 * `prepare` (run by `npm ci` and `npm install` in a checkout): builds the documentation site, so
 * `npm start` serves it at /docs/ with no other step. Never fails the install: without the dev
 * dependencies (`--omit=dev`) there is nothing to build with, and a failed build leaves the site
 * unbuilt, which the server says (503 docs_not_built, naming `npm run docs:build`) and
 * `npm run docs:build` shows in full.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

if (!existsSync(new URL('../../node_modules/vitepress/package.json', import.meta.url))) {
  console.log('prepare: vitepress is not installed (no dev dependencies): the docs site is not built');
} else {
  const npm = process.env.npm_execpath;
  const result = npm ? spawnSync(process.execPath, [npm, 'run', '--silent', 'docs:build'], { stdio: 'inherit' }) : spawnSync('npm', ['run', '--silent', 'docs:build'], { stdio: 'inherit', shell: process.platform === 'win32' });
  if (result.status !== 0) console.warn('prepare: the docs site did not build; run npm run docs:build to see why (the sandbox answers /docs/ with 503 until then)');
}
