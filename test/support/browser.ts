/**
 * Which Chromium the browser tests drive, or why there is none. A fresh machine without a
 * browser must still pass `npm test` (most CI services set CI=true, so CI is no reason to
 * demand one); `LNPR_REQUIRE_BROWSER=1`, which `.ci/run` sets, turns a missing browser into a
 * failure so CI cannot skip them unseen.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Where a Chromium is usually installed: Debian's, Ubuntu's and Google's packages. */
export const BROWSER_CANDIDATES = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
];

/** What the browser tests found. */
export type BrowserSearch =
  | { found: true; executablePath: string }
  | { found: false; reason: string };

/**
 * `CHROME_PATH`, when set, names the one browser to use (so a user can point at theirs, or set
 * it to nothing usable to run without one); otherwise the first candidate that exists.
 */
export function findBrowser(env: NodeJS.ProcessEnv = process.env, exists: (path: string) => boolean = existsSync): BrowserSearch {
  const chosen = env.CHROME_PATH;
  if (chosen !== undefined && chosen !== '') {
    return exists(chosen) ? { found: true, executablePath: chosen } : { found: false, reason: `CHROME_PATH=${chosen} does not exist` };
  }
  const executablePath = BROWSER_CANDIDATES.find((path) => exists(path));
  return executablePath
    ? { found: true, executablePath }
    : { found: false, reason: `no Chromium or Chrome at ${BROWSER_CANDIDATES.join(', ')} and CHROME_PATH is not set` };
}

/** Whether browser tests must run (and so fail rather than skip without a browser). */
export function browserRequired(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.LNPR_REQUIRE_BROWSER === '1';
}

/** The one line a skipped browser suite prints: why, and how to run it. */
export function skipLine(suite: string, reason: string): string {
  return (
    `[browser tests] skipped "${suite}": ${reason}. ` +
    `To run them: install Chromium (Debian: apt-get install chromium) or set CHROME_PATH; ` +
    `LNPR_REQUIRE_BROWSER=1 makes a missing browser a failure.`
  );
}

/**
 * Decides, once per test file, whether its browser suite runs: returns the executable to launch,
 * or null after printing the skip line. Throws when a browser is required and missing.
 */
export function browserForSuite(suite: string, env: NodeJS.ProcessEnv = process.env): string | null {
  const search = findBrowser(env);
  if (search.found) return search.executablePath;
  if (browserRequired(env)) throw new Error(`LNPR_REQUIRE_BROWSER=1 but ${search.reason}: the browser tests cannot run`);
  console.warn(skipLine(suite, search.reason));
  return null;
}

/** Flags for a headless Chromium that reaches nothing on its own (no updates, sync or telemetry). */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** Launches the found browser headless. */
export function launchBrowser(executablePath: string): Promise<Browser> {
  return chromium.launch({ executablePath, args: CHROMIUM_ARGS });
}
