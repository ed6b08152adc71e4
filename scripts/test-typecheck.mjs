/**
 * `npm test`, the typecheck part: `npm run typecheck`, unless `LNPR_SLOW_SUITES=skip` says the
 * slow parts run on another runtime. Its verdict does not depend on the Node that runs it, so
 * `.ci/run` checks types once, on this machine's Node, not on all four.
 */
import { spawnSync } from 'node:child_process';

if (process.env.LNPR_SLOW_SUITES === 'skip') {
  console.log('typecheck: not run here (LNPR_SLOW_SUITES=skip: it runs on another runtime)');
  process.exit(0);
}
const result = spawnSync('npm', ['run', 'typecheck'], { stdio: 'inherit', shell: process.platform === 'win32' });
process.exit(result.status ?? 1);
