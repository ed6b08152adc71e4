/** What a transport of NWC accounts' connected wallets gets from the engine. */
import type { SandboxStore } from '../store/sandbox-store.js';
import type { Timers } from '../ports.js';
import type { TestWallets } from './test-wallets.js';
import type { WalletFaultBook } from './wallet-faults.js';
import type { WalletLedger } from './wallet-ledger.js';

/** The engine's wallet parts. */
export interface WalletParts {
  ledger: WalletLedger;
  testWallets: TestWallets;
  faults: WalletFaultBook;
  store: SandboxStore;
  timers: Timers;
  /** How long a connected wallet has to answer (`--nwc-timeout`). */
  timeoutMs: number;
  relayUrl(): string;
  onError(error: unknown): void;
}

