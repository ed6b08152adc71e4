/**
 * Test wallets (`/sandbox/v1/wallets`) and an account's wallet connection (`/sandbox/v1/wallet`):
 * one source for ajv, the OpenAPI document and the TypeScript types. Balances are sats here;
 * NIP-47 counts msats.
 */
import { ISO_UTC_MILLIS_PATTERN } from './payment-request.js';

/**
 * The largest balance a test wallet may hold, in sats (10,000 BTC): its msats stay exact in a
 * JSON number, as NIP-47 carries them.
 */
export const MAX_WALLET_BALANCE_SATS = 1_000_000_000_000;
/** The longest wallet name. */
export const MAX_WALLET_NAME_LENGTH = 100;

const sats = { type: 'integer', minimum: 0, maximum: MAX_WALLET_BALANCE_SATS } as const;

/** `POST /sandbox/v1/wallets`. */
export const createWalletBodySchema = {
  $id: 'https://lnpr-sandbox.dev/schemas/sandbox/create-wallet.json',
  type: 'object',
  required: ['balance'],
  additionalProperties: false,
  properties: {
    balance: sats,
    name: { type: 'string', minLength: 1, maxLength: MAX_WALLET_NAME_LENGTH },
  },
} as const;

export interface CreateWalletBody {
  balance: number;
  name?: string;
}

/** `POST /sandbox/v1/wallets/{id}/topup`. */
export const topUpBodySchema = {
  $id: 'https://lnpr-sandbox.dev/schemas/sandbox/top-up.json',
  type: 'object',
  required: ['amount'],
  additionalProperties: false,
  properties: { amount: { type: 'integer', minimum: 1, maximum: MAX_WALLET_BALANCE_SATS } },
} as const;

export interface TopUpBody {
  amount: number;
}

/** A test wallet. */
export const walletSchema = {
  $id: 'https://lnpr-sandbox.dev/schemas/sandbox/wallet.json',
  type: 'object',
  required: ['id', 'name', 'balance', 'walletPubkey', 'createdAt'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', pattern: '^wal_\\S+$' },
    name: { type: ['string', 'null'] },
    balance: { type: 'integer', minimum: 0, description: 'Sats (whole; a fraction of a sat received over NIP-47 is not shown).' },
    walletPubkey: { type: 'string', pattern: '^[0-9a-f]{64}$', description: "The wallet's Nostr public key (the host of its `nwcUrl`): no secret." },
    nwcUrl: {
      type: 'string',
      pattern: '^nostr\\+walletconnect://[0-9a-f]{64}\\?',
      description: 'The connection with its secret: shown to keys with `create` only (a read-only key never sees it).',
    },
    createdAt: { type: 'string', pattern: ISO_UTC_MILLIS_PATTERN },
  },
} as const;

export interface WalletView {
  id: string;
  name: string | null;
  balance: number;
  walletPubkey: string;
  /** Holds the connection's secret: keys with `create` only. */
  nwcUrl?: string;
  createdAt: string;
}

/** `GET /sandbox/v1/wallets`. */
export const walletListSchema = {
  $id: 'https://lnpr-sandbox.dev/schemas/sandbox/wallet-list.json',
  type: 'object',
  required: ['data'],
  properties: { data: { type: 'array', items: walletSchema } },
} as const;

/** A NIP-47 transaction object (msats, Unix seconds). */
export const walletTransactionSchema = {
  $id: 'https://lnpr-sandbox.dev/schemas/sandbox/wallet-transaction.json',
  type: 'object',
  required: ['type', 'state', 'invoice', 'payment_hash', 'amount', 'fees_paid', 'created_at'],
  additionalProperties: false,
  properties: {
    type: { enum: ['incoming', 'outgoing'] },
    state: { enum: ['pending', 'settled', 'failed', 'expired'] },
    invoice: { type: 'string' },
    description: { type: 'string' },
    description_hash: { type: 'string' },
    preimage: { type: 'string', pattern: '^[0-9a-f]{64}$' },
    payment_hash: { type: 'string', pattern: '^[0-9a-f]{64}$' },
    amount: { type: 'integer', minimum: 0, description: 'Msats.' },
    fees_paid: { type: 'integer', minimum: 0, description: 'Msats.' },
    created_at: { type: 'integer' },
    expires_at: { type: 'integer' },
    settled_at: { type: 'integer' },
  },
} as const;

/** `GET /sandbox/v1/wallets/{id}/transactions`. */
export const walletTransactionListSchema = {
  $id: 'https://lnpr-sandbox.dev/schemas/sandbox/wallet-transaction-list.json',
  type: 'object',
  required: ['data'],
  properties: { data: { type: 'array', items: walletTransactionSchema } },
} as const;

/** `GET /sandbox/v1/wallet`: the account's Nostr Wallet Connect connection. */
export const walletConnectionSchema = {
  $id: 'https://lnpr-sandbox.dev/schemas/sandbox/wallet-connection.json',
  type: 'object',
  required: ['relay', 'walletPubkey', 'online', 'encryption'],
  additionalProperties: false,
  properties: {
    relay: { type: 'string' },
    walletPubkey: { type: 'string', pattern: '^[0-9a-f]{64}$' },
    nwcUrl: { type: 'string', description: 'The connection with its secret: shown to keys with `create` only.' },
    online: { type: 'boolean' },
    encryption: { enum: ['nip44_v2', 'nip04'] },
  },
} as const;

export interface WalletConnectionView {
  relay: string;
  walletPubkey: string;
  nwcUrl?: string;
  online: boolean;
  encryption: 'nip44_v2' | 'nip04';
}

/** The longest delay a wallet fault may put on a notification, in seconds. */
export const MAX_NOTIFICATION_DELAY_SECONDS = 3600;

const probability = { type: 'number', minimum: 0, maximum: 1 } as const;

/** `PUT /sandbox/v1/wallet/faults`, and its answer. */
export const walletFaultsSchema = {
  $id: 'https://lnpr-sandbox.dev/schemas/sandbox/wallet-faults.json',
  type: 'object',
  additionalProperties: false,
  properties: {
    offline: { type: 'boolean' },
    dropNotifications: probability,
    duplicateNotifications: probability,
    delaySeconds: { type: 'number', minimum: 0, maximum: MAX_NOTIFICATION_DELAY_SECONDS },
  },
} as const;
