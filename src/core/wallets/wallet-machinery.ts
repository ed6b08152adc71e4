/**
 * The wallet side of the engine, assembled: the ledger every sandbox-run wallet keeps its money
 * in, the accounts' test wallets, the wallet faults, the NWC accounts' connected wallets (in-process,
 * or over a relay when the transport says so) and the watch that makes up for lost notifications.
 * Payment requests are the engine's: they come in as `requests`, read only once money moves.
 */
import type { AccountDirectory } from '../accounts/accounts.js';
import type { ChangeLog } from '../events/change-log.js';
import type { PaymentRequests } from '../payments/payment-requests.js';
import type { AccountClocks, ConnectedWallets, InvoiceIssuer, RandomSource, RemotePayees, Timers, WallClock } from '../ports.js';
import type { SandboxStore } from '../store/sandbox-store.js';
import { cryptoRandom } from '../random.js';
import { inProcessConnectedWallets } from './in-process-wallets.js';
import { SettlementWatch } from './settlement-watch.js';
import { TestWallets } from './test-wallets.js';
import { WalletFaultBook } from './wallet-faults.js';
import { WalletLedger } from './wallet-ledger.js';
import type { WalletParts } from './wallet-parts.js';

/** What the wallets need from the engine. */
export interface WalletMachineryDeps {
  store: SandboxStore;
  clocks: AccountClocks;
  wall: WallClock;
  invoices: InvoiceIssuer;
  /** The engine's random source (seeded in fixtures): invoices' preimages and secrets. */
  random: RandomSource;
  timers: Timers;
  directory: AccountDirectory;
  changeLog: ChangeLog;
  /** Seconds a connected wallet has to answer. */
  nwcTimeoutSeconds: number;
  relayUrl(): string;
  /** How connected wallets are reached; in-process by default. */
  connectedWallets?: (parts: WalletParts) => ConnectedWallets;
  /** Invoices another process holds (a replica serving other accounts). */
  remotePayees?: RemotePayees;
  /** The payment requests, once made (they need the connected wallets first). */
  requests(): PaymentRequests;
  onError(error: unknown): void;
}

/** The assembled wallet side. */
export interface WalletMachinery {
  ledger: WalletLedger;
  testWallets: TestWallets;
  faults: WalletFaultBook;
  connectedWallets: ConnectedWallets;
  /** Starts hearing the connected wallets and watching pending NWC requests. */
  start(): void;
  /** Serves the account's test wallets and watches its pending NWC requests, just loaded into the store. */
  adopt(accountId: string): void;
  close(): void;
}

/** Assembles the wallets; `start()` once the payment requests exist. */
export function createWalletMachinery(deps: WalletMachineryDeps): WalletMachinery {
  const { store, clocks, timers, requests, onError } = deps;
  const faults = new WalletFaultBook();
  const ledger = new WalletLedger({
    store,
    clocks,
    invoices: deps.invoices,
    random: deps.random,
    // A custodial request a wallet pays completes with the payer's side in the same write.
    completeRequest: (record, alongside) => requests().completePaid(record, alongside),
    defer: (task) => timers.setTimeout(task, 0),
    ...(deps.remotePayees ? { remotePayees: deps.remotePayees } : {}),
    onError,
  });
  // Keys of test wallets are secrets: crypto-strong whatever the engine's random source.
  const testWallets = new TestWallets({ store, wall: deps.wall, random: cryptoRandom, relayUrl: deps.relayUrl, onError });
  const parts: WalletParts = { ledger, testWallets, faults, store, timers, timeoutMs: deps.nwcTimeoutSeconds * 1000, relayUrl: deps.relayUrl, onError };
  const connectedWallets = (deps.connectedWallets ?? inProcessConnectedWallets)(parts);
  let watch: SettlementWatch | undefined;
  let stopWatching: (() => void) | undefined;
  return {
    ledger,
    testWallets,
    faults,
    connectedWallets,
    start() {
      const settled = (accountId: string, paymentHash: string, preimage: string) => requests().settledByWallet(accountId, paymentHash, preimage);
      connectedWallets.start((accountId, paymentHash, preimage) => {
        settled(accountId, paymentHash, preimage).catch(onError);
      });
      const started = new SettlementWatch({ store, clocks, wallets: connectedWallets, timers, accountOf: (id) => deps.directory.accounts.get(id), settled, onError });
      watch = started;
      stopWatching = deps.changeLog.subscribe((event) => {
        if (event.type === 'payment_request.created' && event.data.isNwc) started.watch(store.getPaymentRequest(event.data.id)!);
      });
    },
    adopt(accountId) {
      connectedWallets.adopt?.(accountId);
      for (const record of store.paymentRequestsOf(accountId)) if (record.status === 'pending' && record.isNwc) watch?.watch(record);
    },
    close() {
      stopWatching?.();
      watch?.close();
      connectedWallets.close();
    },
  };
}
