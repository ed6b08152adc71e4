/**
 * `createSandbox` for Node: the same engine with the WASM signer (identical signatures, ~4.7x
 * faster than noble here), the node:http webhook sender, given a `dataFile` the durable JSON-file
 * store, and a Nostr relay whose wallets speak NIP-47 for real (test wallets, NWC accounts'
 * connected wallets). A server serves the relay at `/nostr` when given `sandbox.relay`.
 */
import { IN_PROCESS_RELAY_URL } from './core/engine.js';
import { wasmSigner } from './lightning/signer.node.js';
import type { NwcRequestRecord } from './nostr/nwc/wallet-service.js';
import { SandboxRelay } from './nostr/relay/sandbox-relay.node.js';
import { wasmEventSigner } from './nostr/event-signer.node.js';
import { relayConnectedWallets } from './nostr/relay-wallets.js';
import { webSocketRelaySession } from './nostr/web-socket-relay-session.node.js';
import type { RelaySession } from './nostr/relay-session.js';
import { createSandbox as createBrowserSafeSandbox, type Sandbox, type SandboxOptions } from './sandbox.js';
import { openJsonFileStore } from './store/json-file-store.node.js';
import type { StoreNotice } from './store/store-notice.js';
import { createHttpWebhookSender } from './webhook-sender/http-webhook-sender.node.js';

/** Options of the Node sandbox: those of `createSandbox`, plus a data file. */
export interface NodeSandboxOptions extends SandboxOptions {
  /** A JSON file (lowdb) that keeps payment requests across restarts; in memory when absent. */
  dataFile?: string;
  /**
   * Hears what the data file's store reports: writes failing (errno code and file) and taken
   * again, compactions failing, torn journal lines dropped at start; default: a line on stderr.
   */
  onStorageNotice?: (notice: StoreNotice) => void;
  /** Hears every NIP-47 request the sandbox's wallets answer (the dashboard shows the recent ones). */
  onNwcRequest?: (record: NwcRequestRecord) => void;
  /**
   * The session the sandbox's wallets speak NIP-47 over: an in-process session of its own relay by
   * default; a replica's wallets reach the one relay of the replicas (`lnpr serve --database-url`).
   */
  walletRelaySession?: () => RelaySession;
}

/** A sandbox in Node: with its Nostr relay. */
export interface NodeSandbox extends Sandbox {
  /** The relay its wallets are on; `buildServer({ relay })` serves it at `/nostr`. */
  relay: SandboxRelay;
}

/** Creates a sandbox in Node; resolves once its data file (if any) is open and locked. */
export async function createNodeSandbox(options: NodeSandboxOptions = {}): Promise<NodeSandbox> {
  const { dataFile, onStorageNotice, onNwcRequest, walletRelaySession, ...rest } = options;
  const store =
    rest.store ?? (dataFile !== undefined ? await openJsonFileStore(dataFile, onStorageNotice ? { onNotice: onStorageNotice } : {}) : undefined);
  const sender = rest.webhookSender ? undefined : createHttpWebhookSender();
  try {
    const relay = new SandboxRelay(rest.onUnexpectedError ? { onError: rest.onUnexpectedError } : {});
    const sandbox = createBrowserSafeSandbox({
      signer: wasmSigner,
      ...(sender ? { webhookSender: sender } : {}),
      connectedWallets: relayConnectedWallets({
        session: walletRelaySession?.() ?? relay.session(),
        network: rest.network ?? 'regtest',
        signer: wasmEventSigner,
        ...(onNwcRequest ? { onRequest: onNwcRequest } : {}),
        externalSession: (url) => webSocketRelaySession(url, rest.onUnexpectedError ? { onError: rest.onUnexpectedError } : {}),
      }),
      relayUrl: () => relay.url ?? IN_PROCESS_RELAY_URL,
      ...rest,
      ...(store ? { store } : {}),
    });
    return {
      ...sandbox,
      relay,
      close() {
        sandbox.close();
        sender?.close();
        relay.close().catch(() => {});
      },
    };
  } catch (error) {
    sender?.close();
    await store?.close();
    throw error;
  }
}
