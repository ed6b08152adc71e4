/**
 * The default NWC account's connected wallet publishes its info event (issue 21, finding 7):
 * `GET /sandbox/v1/wallet` with `sk_test_nwc` names a wallet whose relay holds its kind-13194
 * event from the start, so an independent client (@getalby/sdk 7's NWCClient) handed that
 * `nwcUrl` learns its methods and encryption before any payment request was made.
 */
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { KEYS, startServer, type RunningServer } from './support/sandbox-server.js';

(globalThis as { WebSocket?: unknown }).WebSocket ??= WebSocket;
const { NWCClient } = await import('@getalby/sdk/nwc');

let server: RunningServer;
beforeAll(async () => {
  for (const method of ['info', 'warn', 'error'] as const) vi.spyOn(console, method).mockImplementation(() => {});
  server = await startServer();
});
afterAll(async () => {
  await server?.close();
  vi.restoreAllMocks();
});

describe("the default NWC account's wallet", () => {
  it('has its info event on the relay it names: methods and encryption', async () => {
    const connection = await server.api('/sandbox/v1/wallet', { key: KEYS.nwc });
    expect(connection.status, connection.text).toBe(200);
    const nwcUrl = connection.body.nwcUrl as string;
    expect(nwcUrl).toMatch(/^nostr\+walletconnect:\/\//);
    const client = new NWCClient({ nostrWalletConnectUrl: nwcUrl });
    try {
      const info = await client.getWalletServiceInfo();
      expect(info.capabilities).toEqual(expect.arrayContaining(['get_info', 'make_invoice', 'lookup_invoice']));
      expect(info.encryptions).toContain(connection.body.encryption);
      expect((await client.getInfo()).methods).toEqual(expect.arrayContaining(['get_info', 'make_invoice']));
    } finally {
      client.close();
    }
  }, 15_000);
});
