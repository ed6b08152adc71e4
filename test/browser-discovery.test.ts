/**
 * `npm test` on any machine: the browser suites find a browser, or skip with one clear line, or
 * (LNPR_REQUIRE_BROWSER=1) fail. The last two cases run the real browser test file in a child
 * vitest with CHROME_PATH naming no browser, as on a fresh machine without one.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { BROWSER_CANDIDATES, browserForSuite, findBrowser } from './support/browser.js';

const run = promisify(execFile);

describe('finding a browser', () => {
  const only = (...paths: string[]) => (path: string) => paths.includes(path);

  it('takes CHROME_PATH when it exists, and nothing else when it does not', () => {
    expect(findBrowser({ CHROME_PATH: '/opt/chrome' }, only('/opt/chrome', '/usr/bin/chromium'))).toEqual({ found: true, executablePath: '/opt/chrome' });
    expect(findBrowser({ CHROME_PATH: '/opt/none' }, only('/usr/bin/chromium'))).toEqual({ found: false, reason: 'CHROME_PATH=/opt/none does not exist' });
  });

  it('otherwise takes the first installed candidate, or says where it looked', () => {
    expect(findBrowser({}, only('/usr/bin/google-chrome'))).toEqual({ found: true, executablePath: '/usr/bin/google-chrome' });
    const none = findBrowser({}, only());
    expect(none.found).toBe(false);
    for (const path of BROWSER_CANDIDATES) expect(none.found === false && none.reason).toContain(path);
  });

  it('fails rather than skips when LNPR_REQUIRE_BROWSER=1', () => {
    expect(() => browserForSuite('a suite', { CHROME_PATH: '/opt/none', LNPR_REQUIRE_BROWSER: '1' })).toThrow(/LNPR_REQUIRE_BROWSER=1 but CHROME_PATH=\/opt\/none does not exist/);
  });
});

describe('the browser test file on a machine without a browser', () => {
  const vitest = (env: NodeJS.ProcessEnv) =>
    run(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', 'test/msw-browser.test.ts'], {
      env: { ...process.env, CI: 'true', CHROME_PATH: '/nonexistent/chromium', ...env },
      timeout: 60_000,
    });

  it('passes under CI=true, skipping the browser suite with one line saying why and how to enable it', async () => {
    const { stdout, stderr } = await vitest({ LNPR_REQUIRE_BROWSER: '' });
    const output = stdout + stderr;
    const lines = output.split('\n').filter((line) => line.includes('[browser tests] skipped'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('CHROME_PATH=/nonexistent/chromium does not exist');
    expect(lines[0]).toContain('LNPR_REQUIRE_BROWSER=1');
    expect(output).toMatch(/skipped/);
  }, 60_000);

  it('fails with LNPR_REQUIRE_BROWSER=1', async () => {
    const failure = await vitest({ LNPR_REQUIRE_BROWSER: '1' }).then(
      () => undefined,
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    expect(failure?.code).toBe(1);
    expect(failure!.stdout + failure!.stderr).toContain('LNPR_REQUIRE_BROWSER=1 but CHROME_PATH=/nonexistent/chromium does not exist');
  }, 60_000);
});
