/**
 * The version of the installed package, for `lnpr --version`. Read from the package's own
 * package.json, found upwards from this file: the source (src/cli) and the compiled CLI
 * (dist/src/cli) sit at different depths.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package's name, which tells its package.json from any other on the way up. */
const PACKAGE_NAME = 'lnpr-sandbox';

/** The version in the package's package.json. */
export function packageVersion(): string {
  let folder = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(folder, 'package.json');
    if (existsSync(candidate)) {
      const manifest = JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string; version?: string };
      if (manifest.name === PACKAGE_NAME && manifest.version) return manifest.version;
    }
    const parent = dirname(folder);
    if (parent === folder) throw new Error(`lnpr: no package.json of ${PACKAGE_NAME} above ${fileURLToPath(import.meta.url)}`);
    folder = parent;
  }
}
