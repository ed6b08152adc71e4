/**
 * `lnpr-sandbox` in Node: the API of `index.ts`, whose `createSandbox` here signs with the WASM
 * signer (identical invoices, faster), plus the JSON-file sandbox and the Fastify server.
 */
import { wasmSigner } from './lightning/signer.node.js';
import { createSandbox as createBrowserSafeSandbox, type Sandbox, type SandboxOptions } from './sandbox.js';

export * from './index.js';
export { createNodeSandbox, type NodeSandboxOptions } from './sandbox.node.js';
export { buildServer, type ServerOptions } from './http/server.js';

/** Creates a sandbox engine in this process; `sandbox.handle(request)` answers API requests. */
export function createSandbox(options: SandboxOptions = {}): Sandbox {
  return createBrowserSafeSandbox({ signer: wasmSigner, ...options });
}
