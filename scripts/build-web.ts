/**
 * `npm run build`, second half: builds the web pages (dashboard, pay page) from `src/web` into
 * `dist/web`, where an installed sandbox serves them from.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildWebFiles } from '../src/http/web-build.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const outDir = join(root, 'dist', 'web');
const started = performance.now();
const files = await buildWebFiles(join(root, 'src', 'web'));
await rm(outDir, { recursive: true, force: true });
await mkdir(outDir, { recursive: true });
for (const [name, contents] of files) await writeFile(join(outDir, name), contents);
const bytes = [...files.values()].reduce((sum, file) => sum + file.length, 0);
console.log(`web pages: ${files.size} files, ${Math.round(bytes / 1024)} KiB in dist/web (${Math.round(performance.now() - started)} ms)`);
