#!/usr/bin/env node
// `lnpr`, the package's bin. Installed, it runs the compiled CLI (dist/). In a checkout, where the
// TypeScript source sits beside this file and tsx is installed, it runs the source itself, in this
// same process: `npx lnpr` then needs no build, never runs a stale one, and `npm start` is one
// process that a signal stops (no tsx parent left holding the port).
import { existsSync } from 'node:fs';

const source = new URL('./main.ts', import.meta.url);
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(source.href);
} else {
  await import('../../dist/src/cli/main.js');
}
