/**
 * `npm test`, the msw 3 part: runs the MSW transport's tests again with `msw` resolved to msw 3
 * (vitest.msw3.config.ts). msw 3 needs Node >= 22.12, so on an older Node this says so and
 * passes; `.ci/run` runs `npm test` on Node 22, 24 and 26 as well. Extra arguments go to vitest.
 *
 * msw 3 is not a dependency of the root: its engines (Node >= 22.12) would make `npm ci` warn on
 * Node 20, a Node the package supports. It has a project of its own, `scripts/msw3`, pinned by
 * its own lock file and installed here (`npm ci`, npm's cache first) on a Node that runs it; the
 * link `node_modules/msw3` then points at it, the name the Vitest config and the tests use.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 12)) {
  console.log(`msw 3: not tested on Node ${process.version} (msw 3 needs Node >= 22.12; .ci/run tests it on Node 22, 24 and 26)`);
  process.exit(0);
}
const root = fileURLToPath(new URL('..', import.meta.url));
const project = fileURLToPath(new URL('msw3/', import.meta.url));
const pinned = JSON.parse(readFileSync(`${project}package.json`, 'utf8')).dependencies.msw;
const installed = `${project}node_modules/msw/package.json`;
if (!existsSync(installed) || JSON.parse(readFileSync(installed, 'utf8')).version !== pinned) {
  console.log(`msw 3: installing msw ${pinned} into scripts/msw3 (its own lock file)`);
  const install = spawnSync('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: project, stdio: 'inherit' });
  if (install.status !== 0) process.exit(install.status ?? 1);
}
const link = `${root}node_modules/msw3`;
rmSync(link, { recursive: true, force: true });
symlinkSync(`${project}node_modules/msw`, link, 'dir');

console.log(`msw 3: the MSW handlers' tests with msw 3 in the place of msw 2 (Node ${process.version})`);
const vitest = fileURLToPath(new URL('../node_modules/vitest/vitest.mjs', import.meta.url));
const run = spawnSync(process.execPath, [vitest, 'run', '--config', 'vitest.msw3.config.ts', ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
process.exit(run.status ?? 1);
