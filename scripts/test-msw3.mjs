/**
 * `npm test`, the msw 3 part: runs the MSW transport's tests again with `msw` resolved to msw 3
 * (vitest.msw3.config.ts). msw 3 needs Node >= 22.12, so on an older Node this says so and
 * passes; `.ci/run` runs `npm test` on Node 22, 24 and 26 as well. Extra arguments go to vitest.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 12)) {
  console.log(`msw 3: not tested on Node ${process.version} (msw 3 needs Node >= 22.12; .ci/run tests it on Node 22, 24 and 26)`);
  process.exit(0);
}
console.log(`msw 3: the MSW handlers' tests with msw 3 in the place of msw 2 (Node ${process.version})`);
const vitest = fileURLToPath(new URL('../node_modules/vitest/vitest.mjs', import.meta.url));
const root = fileURLToPath(new URL('..', import.meta.url));
const run = spawnSync(process.execPath, [vitest, 'run', '--config', 'vitest.msw3.config.ts', ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
process.exit(run.status ?? 1);
