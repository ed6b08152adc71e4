/**
 * Test wallets (`/sandbox/v1/wallets`), an offline NWC faucet, and the account's own wallet
 * connection (`/sandbox/v1/wallet`). Any key of an account reads them; `create` changes them. A
 * connection's secret (its `nwcUrl`) is a `Secret`: the pipeline writes it for `create` keys only.
 */
import {
  createWalletBodySchema,
  topUpBodySchema,
  walletConnectionSchema,
  walletFaultsSchema,
  walletListSchema,
  walletSchema,
  walletTransactionListSchema,
  type CreateWalletBody,
  type TopUpBody,
  type WalletConnectionView,
} from '../../schemas/wallets.js';
import { ApiError } from '../errors/errors.js';
import { declareBody } from '../pipeline/route.js';
import { Secret, type WithSecrets } from '../secret.js';
import type { WalletFaults } from '../wallets/wallet-faults.js';
import { route, type EngineRoute } from './route-deps.js';

/** The wallet routes. */
export function walletRoutes(): EngineRoute[] {
  return [
    route({
      name: 'createTestWallet',
      method: 'POST',
      path: '/sandbox/v1/wallets',
      access: 'create',
      body: declareBody<CreateWalletBody>({ schema: createWalletBodySchema, what: 'test wallet', notes: { balance: { unit: 'sats' } } }),
      answer: { status: 201, schema: walletSchema },
      errors: ['wallet_limit_reached'],
      handle: async ({ caller, body }, { testWallets }) => {
        const wallet = await testWallets.create(caller.account.id, body);
        return { status: 201, body: testWallets.view(wallet), headers: { location: `/sandbox/v1/wallets/${wallet.id}` } };
      },
    }),
    route({
      name: 'listTestWallets',
      method: 'GET',
      path: '/sandbox/v1/wallets',
      access: 'read',
      answer: { status: 200, schema: walletListSchema },
      handle: ({ caller }, { testWallets }) => ({ status: 200, body: { data: testWallets.list(caller.account.id).map((wallet) => testWallets.view(wallet)) } }),
    }),
    route({
      name: 'getTestWallet',
      method: 'GET',
      path: '/sandbox/v1/wallets/:id',
      access: 'read',
      answer: { status: 200, schema: walletSchema },
      errors: ['wallet_not_found'],
      handle: ({ caller, params }, { testWallets }) => ({ status: 200, body: testWallets.view(testWallets.get(caller.account.id, params.id!)) }),
    }),
    route({
      name: 'topUpTestWallet',
      method: 'POST',
      path: '/sandbox/v1/wallets/:id/topup',
      access: 'create',
      body: declareBody<TopUpBody>({ schema: topUpBodySchema, what: 'top-up', notes: { amount: { unit: 'sats' } } }),
      answer: { status: 200, schema: walletSchema },
      errors: ['wallet_not_found'],
      handle: async ({ caller, params, body }, { testWallets }) => ({
        status: 200,
        body: testWallets.view(await testWallets.topUp(caller.account.id, params.id!, body.amount)),
      }),
    }),
    route({
      name: 'listTestWalletTransactions',
      method: 'GET',
      path: '/sandbox/v1/wallets/:id/transactions',
      access: 'read',
      answer: { status: 200, schema: walletTransactionListSchema },
      errors: ['wallet_not_found'],
      handle: ({ caller, params }, { testWallets, ledger }) => {
        const wallet = testWallets.get(caller.account.id, params.id!);
        return { status: 200, body: { data: ledger.transactions({ walletId: wallet.id, accountId: wallet.accountId }, { unpaid: true }) } };
      },
    }),
    route({
      name: 'deleteTestWallet',
      method: 'DELETE',
      path: '/sandbox/v1/wallets/:id',
      access: 'create',
      answer: { status: 204 },
      errors: ['wallet_not_found'],
      handle: async ({ caller, params }, { testWallets }) => {
        await testWallets.remove(caller.account.id, params.id!);
        return { status: 204 };
      },
    }),
    route({
      name: 'getWalletConnection',
      method: 'GET',
      path: '/sandbox/v1/wallet',
      access: 'read',
      answer: { status: 200, schema: walletConnectionSchema },
      errors: ['wallet_not_connected'],
      handle: ({ caller }, { connectedWallets }) => {
        if (!caller.account.isNwc) throw new ApiError('wallet_not_connected');
        const { nwcUrl, ...rest } = connectedWallets.connection(caller.account);
        const view: WithSecrets<Required<WalletConnectionView>, 'nwcUrl'> = { ...rest, nwcUrl: new Secret(nwcUrl) };
        return { status: 200, body: view };
      },
    }),
    route({
      name: 'putWalletFaults',
      method: 'PUT',
      path: '/sandbox/v1/wallet/faults',
      access: 'create',
      body: declareBody<WalletFaults>({ schema: walletFaultsSchema, what: 'wallet faults', notes: { delaySeconds: { unit: 'seconds' } } }),
      answer: { status: 200, schema: walletFaultsSchema },
      errors: ['wallet_not_connected'],
      handle: ({ caller, body }, { walletFaults }) => {
        if (!caller.account.isNwc) throw new ApiError('wallet_not_connected');
        walletFaults.set(caller.account.id, body);
        return { status: 200, body: walletFaults.of(caller.account.id) };
      },
    }),
  ];
}
