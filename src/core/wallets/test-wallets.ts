/**
 * Test wallets, an offline NWC faucet: made, funded, listed and removed per account through the
 * control API (`/sandbox/v1/wallets`); they pay over NIP-47 through the ledger. Each has its own
 * Nostr identity and a connection secret, shown in its `nwcUrl` to the `create` keys of its account.
 */
import { bytesToHex } from '@noble/hashes/utils.js';
import { schnorr } from '@noble/curves/secp256k1.js';
import { Listeners } from '../listeners.js';
import { newId } from '../ids.js';
import { ApiError } from '../errors/errors.js';
import { Secret, type WithSecrets } from '../secret.js';
import type { RandomSource, WallClock } from '../ports.js';
import type { SandboxStore } from '../store/sandbox-store.js';
import type { WalletView } from '../../schemas/wallets.js';
import { nwcUrlOf } from './nwc-url.js';
import { nostrPubkeyOf } from './wallet-keys.js';
import { canReceive, MAX_TEST_WALLETS_PER_ACCOUNT, MAX_WALLET_BALANCE_WORDS } from './wallet-limits.js';
import type { WalletRecord } from '../store/wallet-records.js';

/** What test wallets need. */
export interface TestWalletsDeps {
  store: SandboxStore;
  wall: WallClock;
  random: RandomSource;
  /** The relay URL their NWC URLs name (`ws://HOST:PORT/nostr`). */
  relayUrl(): string;
  onError(error: unknown): void;
}

/** A test wallet made or removed through the API. */
export type TestWalletChange = { made: WalletRecord } | { removed: WalletRecord };

/** The account's test wallets. */
export class TestWallets {
  readonly #deps: TestWalletsDeps;
  readonly #listeners: Listeners<[TestWalletChange]>;

  constructor(deps: TestWalletsDeps) {
    this.#deps = deps;
    this.#listeners = new Listeners(deps.onError);
  }

  /** Calls `listener` with every wallet made or removed from now on (the NIP-47 transport serves their connections). */
  onChange(listener: (change: TestWalletChange) => void): () => void {
    return this.#listeners.add(listener);
  }

  /** A new funded wallet; 409 past the per-account bound. Resolves once stored. */
  async create(accountId: string, body: { balance: number; name?: string }): Promise<WalletRecord> {
    const { store, wall, random } = this.#deps;
    if (store.walletsOf(accountId).length >= MAX_TEST_WALLETS_PER_ACCOUNT) throw new ApiError('wallet_limit_reached');
    const wallet: WalletRecord = {
      id: newId('wal_', random),
      accountId,
      name: body.name ?? null,
      balanceMsats: body.balance * 1000,
      createdAt: new Date(wall.now()).toISOString(),
      serviceSecret: bytesToHex(schnorr.utils.randomSecretKey()),
      clientSecret: bytesToHex(schnorr.utils.randomSecretKey()),
    };
    await store.commit({ wallets: [wallet] });
    this.#listeners.emit({ made: wallet });
    return wallet;
  }

  /** The account's wallets, oldest first. */
  list(accountId: string): WalletRecord[] {
    return this.#deps.store.walletsOf(accountId);
  }

  /** The account's wallet; another account's reads as absent (404). */
  get(accountId: string, id: string): WalletRecord {
    const wallet = this.#deps.store.getWallet(id);
    if (wallet === undefined || wallet.accountId !== accountId) throw new ApiError('wallet_not_found');
    return wallet;
  }

  /** Adds `amount` sats; 400 past the largest balance. */
  async topUp(accountId: string, id: string, amount: number): Promise<WalletRecord> {
    const wallet = this.get(accountId, id);
    if (!canReceive(wallet.balanceMsats, amount * 1000)) {
      const message = `amount would take the balance past ${MAX_WALLET_BALANCE_WORDS}, the most a test wallet holds`;
      throw new ApiError('invalid_request', `Invalid top-up: ${message}.`, [{ field: 'amount', code: 'above_maximum', message }]);
    }
    const next = { ...wallet, balanceMsats: wallet.balanceMsats + amount * 1000 };
    await this.#deps.store.commit({ wallets: [next] });
    return next;
  }

  /** Removes the wallet and its transactions; its connection stops answering. */
  async remove(accountId: string, id: string): Promise<void> {
    const wallet = this.get(accountId, id);
    await this.#deps.store.commit({ deletedWallets: [id] });
    this.#listeners.emit({ removed: wallet });
  }

  /** Announces wallets erased with their account's data (a reset, a deletion): their connections stop answering. */
  erased(wallets: readonly WalletRecord[]): void {
    for (const wallet of wallets) this.#listeners.emit({ removed: wallet });
  }

  /**
   * The wallet as the API shows it: balance in whole sats, its public key, and its NWC URL as a
   * secret (written for keys that may see secrets only: `core/pipeline/secret.ts`).
   */
  view(wallet: WalletRecord): WithSecrets<WalletView, 'nwcUrl'> {
    const walletPubkey = nostrPubkeyOf(wallet.serviceSecret);
    return {
      id: wallet.id,
      name: wallet.name,
      balance: Math.floor(wallet.balanceMsats / 1000),
      walletPubkey,
      nwcUrl: new Secret(nwcUrlOf(walletPubkey, this.#deps.relayUrl(), wallet.clientSecret)),
      createdAt: wallet.createdAt,
    };
  }
}
