import { configDefaults, defineConfig } from 'vitest/config';

/**
 * The slowest suites: the documentation's commands in a fresh install, the conformance suite's
 * classifier, PostgreSQL and replicas; and the browser suites and the scenarios, whose subject
 * does not change with the Node that serves it (Chromium drives the same server; the scenarios
 * run the engine, which runs in browsers too). They run on one runtime of CI's four (`.ci/run` sets
 * `LNPR_SLOW_SUITES=skip` for the others, so the whole run stays within CI's time: 47 min of 45
 * before the browser suites and the scenarios joined the list); anywhere else `npm test` runs them.
 */
const SLOW_SUITES = [
  'conformance/test/classifier.test.ts',
  'conformance/test/generated-faults.test.ts',
  'test/readme-commands.test.ts',
  'test/postgres-*.test.ts',
  'test/replicas.test.ts',
  'test/replicas-wallets.test.ts',
  'test/replicas-owners.test.ts',
  'test/shared-sandbox.test.ts',
  'test/*.browser.test.ts',
  'scenarios/scenarios.test.ts',
];
const skipSlow = process.env.LNPR_SLOW_SUITES === 'skip';
if (skipSlow) console.log(`LNPR_SLOW_SUITES=skip: not running ${SLOW_SUITES.join(', ')} (they run on another runtime)`);
/** The packed tarball installed in fresh projects (about a minute a runtime): CI runs it on two runtimes, msw 2's and msw 3's. */
const TARBALL_SUITE = 'test/package-tarball.test.ts';
const skipTarball = process.env.LNPR_TARBALL_SUITE === 'skip';
if (skipTarball) console.log(`LNPR_TARBALL_SUITE=skip: not running ${TARBALL_SUITE} (it runs on another runtime)`);

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'conformance/**/*.test.ts', 'scenarios/**/*.test.ts', 'examples/**/*.test.ts'],
    exclude: [...configDefaults.exclude, ...(skipSlow ? SLOW_SUITES : []), ...(skipTarball ? [TARBALL_SUITE] : [])],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
