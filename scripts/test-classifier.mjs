/**
 * `npm run test:classifier`: the conformance suite as a classifier, in full — the hand-written
 * faults and variants (conformance/test/classifier.test.ts) and the large generated set (every
 * mutant of every operator, conformance/test/generated-faults.test.ts with
 * LNPR_FAULTGEN_SIZE=large). `npm test` runs the small generated set (one mutant per statement and
 * operator). Extra arguments go to vitest.
 */
import { spawnSync } from 'node:child_process';

const result = spawnSync('npx', ['vitest', 'run', 'conformance/test/classifier.test.ts', 'conformance/test/generated-faults.test.ts', ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: { ...process.env, LNPR_FAULTGEN_SIZE: 'large', LNPR_FAULTGEN_WRITE_REPORT: '1' },
  shell: process.platform === 'win32',
});
process.exit(result.status ?? 1);
