/**
 * The MSW transport's tests once more, on msw 3: `msw` (and `msw/node`, ...) resolve to
 * `node_modules/msw3`, the link `scripts/test-msw3.mjs` makes to the pinned copy in scripts/msw3,
 * so our handlers and the tests import msw 3 exactly as an msw 3 project's would. msw 3 needs Node >= 22.12; `scripts/test-msw3.mjs` runs this config
 * only there. The tests check which msw answered (test/support/msw-under-test.ts).
 */
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    alias: [{ find: /^msw(?=$|\/)/, replacement: 'msw3' }],
  },
  test: {
    include: ['src/msw/**/*.test.ts', 'test/msw-parity.test.ts', 'test/msw-conformance.test.ts', 'test/msw-journal-example.test.ts', 'test/api-faults.test.ts', 'test/request-journal.test.ts'],
    env: { LNPR_MSW_MAJOR: '3' },
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
