/**
 * Loaded with `--import` (through NODE_OPTIONS) by tests: appends to $LNPR_MODULE_LOG the URL of
 * every module of the `postgres` package the process resolves, so a test can tell whether the
 * PostgreSQL client was loaded at all.
 */
import { register } from 'node:module';

register('./record-postgres-loads-hooks.mjs', import.meta.url);
