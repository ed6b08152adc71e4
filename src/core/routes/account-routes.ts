/**
 * The accounts API (`/sandbox/v1/accounts`): accounts for isolated runs. A key with the `accounts`
 * permission (`sk_test_admin` among the default keys) creates, lists and deletes accounts, and
 * does nothing else; the new account's keys do the rest.
 */
import { accountListSchema } from '../../schemas/answers.js';
import { createAccountBodySchema, createdAccountSchema, type CreateAccountBody } from '../../schemas/accounts.js';
import { DEFAULT_LIST_LIMIT, LIST_LIMIT } from '../../schemas/list-limit.js';
import { declareBody, declareQuery } from '../pipeline/route.js';
import { route, type EngineRoute } from './route-deps.js';

/** The account routes. */
export function accountRoutes(): EngineRoute[] {
  return [
    route({
      name: 'createAccount',
      method: 'POST',
      path: '/sandbox/v1/accounts',
      access: 'accounts',
      body: declareBody<CreateAccountBody>({ schema: createAccountBodySchema, what: 'account' }),
      answer: { status: 201, schema: createdAccountSchema },
      errors: ['account_limit_reached'],
      handle: async ({ body }, { accounts }) => {
        const created = await accounts.create(body);
        return { status: 201, body: created, headers: { location: `/sandbox/v1/accounts/${created.id}` } };
      },
    }),
    route({
      name: 'listAccounts',
      method: 'GET',
      path: '/sandbox/v1/accounts',
      access: 'accounts',
      query: declareQuery<{ limit?: number }>({ limit: LIST_LIMIT }),
      answer: { status: 200, schema: accountListSchema },
      handle: ({ query }, { accounts }) => ({ status: 200, body: { data: accounts.list(query.limit ?? DEFAULT_LIST_LIMIT) } }),
    }),
    route({
      name: 'deleteAccount',
      method: 'DELETE',
      path: '/sandbox/v1/accounts/:id',
      access: 'accounts',
      answer: { status: 204 },
      errors: ['account_not_found', 'account_not_deletable'],
      handle: async ({ params }, { accounts }) => {
        await accounts.delete(params.id!);
        return { status: 204 };
      },
    }),
  ];
}
