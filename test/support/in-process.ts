/** Requests to a sandbox engine in this process, as JSON with a key (the custodial test key by default). */
import type { Sandbox } from '../../src/sandbox.js';
import { KEYS } from './sandbox-server.js';

/** Sends one request through `sandbox.handle`; the body is parsed JSON (undefined when empty). */
export async function callSandbox(sandbox: Sandbox, method: string, url: string, body?: unknown, key: string = KEYS.custodial) {
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const response = await sandbox.handle({ method, url, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  return { status: response.status, body: response.body ? (JSON.parse(response.body) as Record<string, any>) : undefined };
}
