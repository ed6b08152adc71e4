/**
 * Which msw the MSW transport's tests run on. `npm test` runs them on msw 2 (the `msw` dev
 * dependency) and, on Node >= 22.12, again on msw 3 (`node_modules/msw3`, a link to the pinned
 * copy in scripts/msw3 that `vitest.msw3.config.ts` puts in the place of `msw`, setting
 * LNPR_MSW_MAJOR=3). An alias that
 * silently missed would run msw 2 twice, so the tests ask which copy actually answers: the one
 * whose `http` is the very object that `import 'msw'` gave them.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { http } from 'msw';

/** The msw major version this run is meant to test (`LNPR_MSW_MAJOR`, 2 by default). */
export const EXPECTED_MSW_MAJOR = Number(process.env.LNPR_MSW_MAJOR ?? '2');

/** The installed copies of msw, by folder under node_modules. */
const COPIES = ['msw', 'msw3'];

/** The version of the msw copy that `import 'msw'` loaded here; throws when it is none of the installed ones. */
export async function loadedMswVersion(): Promise<string> {
  for (const folder of COPIES) {
    const root = fileURLToPath(new URL(`../../node_modules/${folder}/`, import.meta.url));
    let manifest: { version: string; exports: { '.': Record<string, unknown> } };
    try {
      manifest = JSON.parse(readFileSync(`${root}package.json`, 'utf8'));
    } catch {
      continue;
    }
    const entry = esmEntry(manifest.exports['.']);
    try {
      const copy = (await import(/* @vite-ignore */ pathToFileURL(`${root}${entry}`).href)) as { http?: unknown };
      if (copy.http === http) return manifest.version;
    } catch {
      // msw 3 does not load on Node 20: then it is not the one answering either.
    }
  }
  throw new Error(`the msw loaded here is none of node_modules/{${COPIES.join(',')}}`);
}

/** The ES module file of an export map entry (msw 2 nests `import: { types, default }`, msw 3 has `default`). */
function esmEntry(conditions: Record<string, unknown>): string {
  const chosen = conditions.import ?? conditions.default;
  if (typeof chosen === 'string') return chosen;
  return esmEntry(chosen as Record<string, unknown>);
}

/**
 * `listen()` options that make a request no handler takes an error (MSW prints it and the fetch
 * fails), but for those `passes` lets through to the network. msw 2 reads `onUnhandledRequest`;
 * msw 3 reads only `onUnhandledFrame` (whose frame carries the request), so both are given.
 */
export function unhandledRequestsFail(passes: (url: string) => boolean = () => false) {
  return {
    onUnhandledRequest(request: Request, print: { error(): void }): void {
      if (!passes(request.url)) print.error();
    },
    onUnhandledFrame({ frame, defaults }: { frame: { data: unknown }; defaults: { error(): void } }): void {
      const { request } = frame.data as { request?: Request };
      if (request === undefined || !passes(request.url)) defaults.error();
    },
  };
}
