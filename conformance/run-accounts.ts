/**
 * Where a run leaves its traces. With an admin key (a key with the `accounts` permission of a
 * sandbox's accounts API) the run makes accounts of its own through `POST /sandbox/v1/accounts`,
 * runs every check with their keys and deletes them afterwards, however the run ends: it leaves
 * nothing anywhere, and runs sharing one sandbox never see each other's data. Without one it runs
 * in the accounts of the keys it was given and says what it left there. HTTP only, like every
 * other part of the suite.
 */
import { ConformanceUsageError } from './check-errors.js';
import type { ResolvedKeys } from './check.js';
import type { ApiClient, LoggedAnswer } from './client.js';
import type { RunAccount, RunFootprint } from './result.js';

/** The accounts of a run with an admin key, and their deletion. */
export interface OwnAccounts {
  keys: ResolvedKeys;
  /** Deletes every account made; never throws. Returns the accounts and whether each went, and warnings for those that did not. */
  remove(): Promise<{ accounts: RunAccount[]; warnings: string[] }>;
}

/**
 * Makes the run's accounts with `admin` (an ApiClient whose main key is the admin key): a
 * custodial one for the main and read-only keys, and an NWC one when `nwc` is asked for.
 * Throws ConformanceUsageError when the target has no accounts API or refuses the key; an account
 * made before a failure is deleted again.
 */
export async function makeOwnAccounts(admin: ApiClient, options: { nwc: boolean; name: string }): Promise<OwnAccounts> {
  const made: Array<{ id: string; mode: 'custodial' | 'nwc' }> = [];
  const remove = async (): Promise<{ accounts: RunAccount[]; warnings: string[] }> => {
    const warnings: string[] = [];
    const accounts = await Promise.all(
      made.map(async ({ id, mode }) => {
        let problem: string | undefined;
        try {
          const answer = await admin.request('DELETE', `/sandbox/v1/accounts/${encodeURIComponent(id)}`);
          if (answer.status !== 204 && answer.status !== 404) problem = `answered ${answer.status} ${answer.text.slice(0, 200)}`;
        } catch (error) {
          problem = (error as Error).message;
        }
        if (problem !== undefined) warnings.push(`the run's account ${id} could not be deleted (DELETE /sandbox/v1/accounts/${id} ${problem}): delete it by hand`);
        return { id, mode, deleted: problem === undefined };
      }),
    );
    return { accounts, warnings };
  };
  const make = async (mode: 'custodial' | 'nwc') => {
    const answer = await admin.post('/sandbox/v1/accounts', { body: { mode, name: options.name } });
    if (answer.status !== 201 || typeof answer.body?.id !== 'string' || typeof answer.body?.keys?.secret !== 'string' || typeof answer.body?.keys?.readOnly !== 'string') {
      throw new ConformanceUsageError(`--admin-key: the target did not make an account (POST /sandbox/v1/accounts answered ${answer.status}${hintFor(answer.status)}): ${answer.text.slice(0, 200)}`);
    }
    made.push({ id: answer.body.id, mode });
    return answer.body.keys as { secret: string; readOnly: string };
  };
  try {
    const main = await make('custodial');
    const nwc = options.nwc ? await make('nwc') : undefined;
    return { keys: { apiKey: main.secret, readOnlyKey: main.readOnly, ...(nwc ? { nwcKey: nwc.secret } : {}) }, remove };
  } catch (error) {
    await remove();
    throw error;
  }
}

function hintFor(status: number): string {
  if (status === 401) return ': is it a key with the accounts permission?';
  if (status === 404) return ': the target has no accounts API; run without --admin-key';
  return '';
}

/** What a run without accounts of its own left in the accounts of its keys, from the answers it got. */
export function footprintOf(answers: readonly LoggedAnswer[], roles: ReadonlyArray<'main' | 'nwc'>, clockAdvancedSeconds: number): RunFootprint {
  const created = (role: 'main' | 'nwc') =>
    answers.filter((answer) => answer.key === role && answer.method === 'POST' && answer.path === '/api/v1/payment-requests' && answer.status >= 200 && answer.status < 300).length;
  // Only the main key's clock is moved (the lifecycle driver's); the NWC account's never is.
  return { isolated: false, left: roles.map((key) => ({ key, paymentRequests: created(key), clockAdvancedSeconds: key === 'main' ? clockAdvancedSeconds : 0 })) };
}
