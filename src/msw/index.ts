/**
 * `lnpr-sandbox/msw` for browsers (and any runtime without Node): MSW handlers for
 * `setupWorker`, signing invoices with the pure-JS noble signer. No Node built-ins anywhere
 * below this file; `test/msw-browser-bundle.test.ts` holds it to that.
 */
export { createHandlers, type HandlersOptions, type SandboxHandlers } from './create-handlers.js';
export { DEFAULT_STORAGE_KEY } from '../store/local-storage-store.js';
export type { Sandbox } from '../sandbox.js';
