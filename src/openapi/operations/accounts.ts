/** Prose of the routes of `core/routes/account-routes.ts`: accounts for isolated runs. */
import { DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT } from '../../schemas/list-limit.js';
import { formatNumber, MAX_CREATED_ACCOUNTS_TEXT } from '../facts.js';
import { LOCATION_HEADER, type ProseRecord } from './prose.js';

const tag = 'Sandbox: accounts';
const createdExample = {
  id: 'acct_4mQ8tV2kLr9XzB7nWc3JpHs6',
  name: 'CI job 1234',
  mode: 'custodial',
  configured: false,
  keys: { secret: 'sk_test_Xb3kT9mQ2vLr8ZpW4nCj7HsY6dFa1GuE', readOnly: 'sk_test_Pq7Nw2Vx9Kc4Lm8Zr3Tb6Hj1Sd5Gf0Ay' },
  createdAt: '2026-03-14T15:09:26.535Z',
};
const { keys: _keys, ...listedExample } = createdExample;

/** The prose of the account routes. */
export const accountProse: ProseRecord = {
  createAccount: {
    tag,
    summary: 'Make an account',
    description:
      `A new, empty account with its own clock, and two keys: \`secret\` (create and read) and \`readOnly\`. Parallel test runs sharing one sandbox each take one, so no run sees or resets another's data; delete it when done. The keys are in this answer only. At most ${MAX_CREATED_ACCOUNTS_TEXT} such accounts exist at once (then 409 \`account_limit_reached\`). With \`--data\` they persist, their keys as SHA-256 digests.`,
    bodyExamples: { ci: { mode: 'custodial', name: 'CI job 1234' }, nwc: { mode: 'nwc' } },
    answer: { description: 'Made: the account and its keys.', examples: { custodial: createdExample }, headers: LOCATION_HEADER },
  },
  listAccounts: {
    tag,
    summary: 'Every account',
    description: 'Accounts made through this API (newest first), then those of the accounts file (`configured: true`). Never their keys.',
    queryParameters: { limit: `At most this many, the newest; ${DEFAULT_LIST_LIMIT} by default, at most ${formatNumber(MAX_LIST_LIMIT)}.` },
    answer: {
      description: 'The accounts.',
      examples: { two: { data: [listedExample, { id: 'acct_custodial', name: null, mode: 'custodial', configured: true, createdAt: null }] } },
    },
  },
  deleteAccount: {
    tag,
    summary: 'Delete an account',
    description:
      'Deletes an account made through this API, its keys (they stop working at once) and all its data: payment requests, events, deliveries (pending ones are cancelled), webhook endpoints, clock and rules. Accounts of the accounts file cannot be deleted (409 `account_not_deletable`): reset them instead.',
    pathParameters: { id: 'The account id, `acct_<identifier>`.' },
    answer: { description: 'Deleted.' },
  },
};
