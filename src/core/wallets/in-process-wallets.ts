/**
 * NWC accounts' connected wallets run in this process, reached without a relay: what the MSW
 * handlers (and `createSandbox` without the Node relay) use. Invoices, payments and notifications
 * behave as over NIP-47, from the same ledger; only the transport is missing.
 */
import { WalletUnavailableError, type ConnectedWallets, type ConnectionState, type WalletOwner } from '../ports.js';
import type { WalletParts } from './wallet-parts.js';
import { merchantWalletKeys, nostrPubkeyOf } from './wallet-keys.js';
import { merchantWalletId } from '../store/wallet-records.js';
import { nwcUrlOf, pointOfNwcUrl } from './nwc-url.js';
import { WalletError } from '../payments/wallet-error.js';

/** The sandbox-run connected wallet of an account, as the ledger knows it. */
export function merchantWalletOf(account: WalletOwner) {
  if (account.walletNodeKey === undefined) throw new WalletError('INTERNAL', `account ${account.id} has no wallet node key`);
  return { walletId: merchantWalletId(account.id), accountId: account.id, nodeKey: account.walletNodeKey };
}

/**
 * The connection of an account's wallet as `GET /sandbox/v1/wallet` shows it: a wallet elsewhere
 * as its URL says; a sandbox-run one's keys derive from the wallet node key.
 */
export function merchantConnection(account: WalletOwner, relay: string, online: boolean): ConnectionState {
  if (account.nwcUrl !== undefined) return { ...pointOfNwcUrl(account.nwcUrl), nwcUrl: account.nwcUrl, online, encryption: 'nip04' };
  const { serviceSecret, clientSecret } = merchantWalletKeys(account.walletNodeKey!);
  const walletPubkey = nostrPubkeyOf(serviceSecret);
  return { relay, walletPubkey, nwcUrl: nwcUrlOf(walletPubkey, relay, clientSecret), online, encryption: 'nip44_v2' };
}

/**
 * Connected wallets answered in-process by the ledger, with the wallet faults of each account: an
 * offline wallet leaves requests unanswered for the timeout, notifications are dropped, repeated
 * or delayed as they would be over a relay (decided from the payment hash: there is no event).
 */
export function inProcessConnectedWallets(parts: WalletParts): ConnectedWallets {
  const { ledger, faults, timers, timeoutMs } = parts;
  let stop: (() => void) | undefined;
  const online = async (account: WalletOwner): Promise<void> => {
    if (account.nwcUrl !== undefined) {
      throw new WalletUnavailableError(`The connected wallet of account ${account.id} runs elsewhere (nwcUrl); these in-process wallets cannot reach it.`);
    }
    if (faults.isOnline(account.id)) return;
    await new Promise<void>((resolve) => timers.setTimeout(() => resolve(), timeoutMs));
    throw new WalletUnavailableError(`The connected wallet of account ${account.id} is offline (a wallet fault) and did not answer within ${timeoutMs / 1000} s; nothing was stored.`);
  };
  return {
    makeInvoice: async (account, request) => {
      await online(account);
      const made = await ledger.makeInvoice(merchantWalletOf(account), request);
      return { invoice: made.invoice, paymentHash: made.paymentHash };
    },
    lookupInvoice: async (account, paymentHash) => {
      await online(account);
      const found = ledger.lookup(merchantWalletOf(account), { paymentHash });
      return { state: found.state, ...(found.preimage !== undefined ? { preimage: found.preimage } : {}) };
    },
    connection: (account) => merchantConnection(account, parts.relayUrl(), account.nwcUrl === undefined && faults.isOnline(account.id)),
    start: (onSettled) => {
      stop = ledger.onNotification((walletId, { notification_type, notification }) => {
        if (notification_type !== 'payment_received' || !walletId.startsWith('merchant:') || notification.preimage === undefined) return;
        const accountId = walletId.slice('merchant:'.length);
        const fate = faults.fateOf(accountId, notification.payment_hash);
        const deliver = () => {
          for (let copy = 0; copy < fate.copies; copy++) onSettled(accountId, notification.payment_hash, notification.preimage!);
        };
        if (fate.delayMs > 0) timers.setTimeout(deliver, fate.delayMs);
        else deliver();
      });
    },
    close: () => stop?.(),
  };
}
