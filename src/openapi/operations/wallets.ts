/** Prose of the routes of `core/routes/wallet-routes.ts`: test wallets and the account's wallet connection. */
import { KEPT_TRANSACTIONS_PER_WALLET, MAX_TEST_WALLETS_PER_ACCOUNT } from '../../core/wallets/wallet-limits.js';
import { formatNumber } from '../facts.js';
import { LOCATION_HEADER, type ProseRecord } from './prose.js';

const tag = 'Sandbox: wallets';
const walletPubkey = 'b889ff5b1513b641e2a139f661a661364979c5beee91842f8f0ef42ab558e9d4';
const walletExample = {
  id: 'wal_7Hc2Kq9LmXv4Rt8ZpB3nWs6Y',
  name: 'checkout e2e payer',
  balance: 100000,
  walletPubkey,
  nwcUrl: `nostr+walletconnect://${walletPubkey}?relay=ws%3A%2F%2F127.0.0.1%3A3000%2Fnostr&secret=71a8c14c1407c113601079c4302dab36460f0ccd0ad506f1f2dc73b5100e4f3c`,
  createdAt: '2026-03-14T15:09:26.535Z',
};
const transactionExample = {
  type: 'outgoing',
  state: 'settled',
  invoice: 'lnbcrt210n1p…',
  description: 'Order #1042',
  preimage: '5f1d3c0a8b7e6d4c2b1a09f8e7d6c5b4a3928171605f4e3d2c1b0a9f8e7d6c5b',
  payment_hash: 'a2c4e6f8091b3d5f7a9c1e3b5d7f9a1c3e5b7d9f1a3c5e7b9d1f3a5c7e9b1d3f',
  amount: 21000,
  fees_paid: 0,
  created_at: 1773500966,
  settled_at: 1773500966,
};

/** The prose of the wallet routes. */
export const walletProse: ProseRecord = {
  createTestWallet: {
    tag,
    summary: 'Make a funded test wallet',
    description: `A payer wallet with \`balance\` sats and its Nostr Wallet Connect URL: any NWC client (Alby's SDK, a browser wallet) connects to it over the sandbox's relay (\`/nostr\`) and pays any pending invoice of this sandbox with \`pay_invoice\`. At most ${MAX_TEST_WALLETS_PER_ACCOUNT} per account (then 409 \`wallet_limit_reached\`). The URL holds the connection's secret.`,
    bodyExamples: { funded: { balance: 100000, name: 'checkout e2e payer' } },
    answer: { description: 'Made.', examples: { wallet: walletExample }, headers: LOCATION_HEADER },
  },
  listTestWallets: {
    tag,
    summary: "The account's test wallets",
    description: 'Oldest first, with their balances (sats), public keys and NWC URLs (`nwcUrl` holds the secret: keys with `create` only; a read-only key never sees it).',
    answer: { description: 'The wallets.', examples: { one: { data: [walletExample] } } },
  },
  getTestWallet: {
    tag,
    summary: 'One test wallet',
    description: 'With its balance in sats (NIP-47 `get_balance` answers msats).',
    pathParameters: { id: 'The wallet id, `wal_<identifier>`.' },
    answer: { description: 'The wallet.', examples: { wallet: walletExample } },
  },
  topUpTestWallet: {
    tag,
    summary: 'Add funds',
    description: 'Adds `amount` sats to the balance.',
    pathParameters: { id: 'The wallet id, `wal_<identifier>`.' },
    bodyExamples: { more: { amount: 50000 } },
    answer: { description: 'The wallet, with its new balance.', examples: { wallet: { ...walletExample, balance: 150000 } } },
  },
  listTestWalletTransactions: {
    tag,
    summary: "A test wallet's payments",
    description: `NIP-47 transaction objects (amounts in msats, times in Unix seconds), newest first, paid and unpaid; the last ${formatNumber(KEPT_TRANSACTIONS_PER_WALLET)} are kept.`,
    pathParameters: { id: 'The wallet id, `wal_<identifier>`.' },
    answer: { description: 'The transactions.', examples: { paid: { data: [transactionExample] } } },
  },
  deleteTestWallet: {
    tag,
    summary: 'Remove a test wallet',
    description: 'Removes the wallet and its transactions; its NWC connection stops answering.',
    pathParameters: { id: 'The wallet id, `wal_<identifier>`.' },
    answer: { description: 'Removed.' },
  },
  putWalletFaults: {
    tag,
    summary: "Make the account's connected wallet misbehave",
    description:
      "Faults of an NWC account's sandbox-run connected wallet, replacing those in force (`{}` clears them): `offline` (requests go unanswered: a create gets 502 `wallet_unavailable` after the NWC timeout), `dropNotifications` (a probability: the payment is then learned by `lookup_invoice` within 5 s), `duplicateNotifications` (the request still completes once, one webhook), `delaySeconds` (every notification waits). Each notification's fate is decided from its event id, so runs repeat. A reset with `{\"scope\": \"all\"}` clears them.",
    bodyExamples: { flaky: { dropNotifications: 0.5, duplicateNotifications: 0.2 }, offline: { offline: true }, clear: {} },
    answer: { description: 'The faults now in force.', examples: { flaky: { dropNotifications: 0.5, duplicateNotifications: 0.2 } } },
  },
  getWalletConnection: {
    tag,
    summary: "The account's connected wallet",
    description:
      "An NWC account's Nostr Wallet Connect connection: the wallet its invoices come from (run by the sandbox unless the accounts file names one with `nwcUrl`), its relay, whether it answers, and the encryption it speaks. `nwcUrl` holds the secret: keys with `create` only. Custodial accounts have none (404 `wallet_not_connected`).",
    answer: {
      description: 'The connection.',
      examples: {
        sandboxRun: {
          relay: 'ws://127.0.0.1:3000/nostr',
          walletPubkey,
          nwcUrl: `nostr+walletconnect://${walletPubkey}?relay=ws%3A%2F%2F127.0.0.1%3A3000%2Fnostr&secret=…`,
          online: true,
          encryption: 'nip44_v2',
        },
      },
    },
  },
};
