/**
 * `lnpr-sandbox/msw` in Node: the API of `index.ts`, whose handlers here sign with the WASM
 * signer (identical invoices, several times faster), for `setupServer` from `msw/node`.
 */
import { wasmSigner } from '../lightning/signer.node.js';
import { createHandlers as createBrowserSafeHandlers, type HandlersOptions, type SandboxHandlers } from './create-handlers.js';

export * from './index.js';

/** Creates a sandbox and the MSW handlers that serve it (for `setupServer`). */
export function createHandlers(options: HandlersOptions = {}): SandboxHandlers {
  return createBrowserSafeHandlers({ signer: wasmSigner, ...options });
}
