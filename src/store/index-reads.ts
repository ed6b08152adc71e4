/**
 * The read half of every SandboxStore: reads come from the in-memory index whatever keeps the
 * data, so the memory, localStorage and JSON-file stores share it and differ only in writing.
 * Browser-safe.
 */
import type { SandboxStore } from '../core/store/sandbox-store.js';
import type { StoreIndex } from './store-index.js';

/** The reads of a SandboxStore. */
export type StoreReads = Pick<
  SandboxStore,
  | 'getPaymentRequest'
  | 'findPaymentRequestByHash'
  | 'paymentRequestsOf'
  | 'pendingPaymentRequests'
  | 'getClock'
  | 'size'
  | 'accountRecords'
  | 'getEvent'
  | 'eventsOf'
  | 'getEndpoint'
  | 'endpointsOf'
  | 'getDelivery'
  | 'deliveriesOf'
  | 'pendingDeliveries'
  | 'getWallet'
  | 'walletsOf'
  | 'allWallets'
  | 'walletTransactionsOf'
  | 'findWalletInvoice'
>;

/** The reads of a store kept in `index`. */
export function indexReads(index: StoreIndex): StoreReads {
  const { events, wallets } = index;
  return {
    getPaymentRequest: (id) => index.get(id),
    findPaymentRequestByHash: (paymentHash) => index.findByHash(paymentHash),
    paymentRequestsOf: (accountId) => index.recordsOf(accountId),
    pendingPaymentRequests: () => index.records().filter((record) => record.status === 'pending'),
    getClock: (accountId) => index.getClock(accountId),
    size: () => index.size,
    accountRecords: () => index.accountRecords(),
    getEvent: (id) => events.getEvent(id),
    eventsOf: (accountId) => events.eventsOf(accountId),
    getEndpoint: (id) => events.getEndpoint(id),
    endpointsOf: (accountId) => events.endpointsOf(accountId),
    getDelivery: (id, attempt) => events.getDelivery(id, attempt),
    deliveriesOf: (accountId) => events.deliveriesOf(accountId),
    pendingDeliveries: () => events.pendingDeliveries(),
    getWallet: (id) => wallets.getWallet(id),
    walletsOf: (accountId) => wallets.walletsOf(accountId),
    allWallets: () => wallets.allWallets(),
    walletTransactionsOf: (walletId) => wallets.walletTransactionsOf(walletId),
    findWalletInvoice: (paymentHash) => wallets.findWalletInvoice(paymentHash),
  };
}
