/**
 * `runConformance`: runs the checks of a profile against one target and classifies each result.
 * It knows the target only through HTTP.
 */
import type { Check, CheckContext, CheckNeed, ResolvedKeys } from './check.js';
import { CheckFailure, CheckSkipped, ConformanceUsageError } from './check-errors.js';
import { ALL_CHECKS } from './checks/index.js';
import { ApiClient, TargetUnreachable, type ApiClientOptions } from './client.js';
import { controlsDriver, detectControls, nwcPayerDriver, payCommandDriver, type LifecycleDriver } from './lifecycle-driver.js';
import type { NwcPayer } from './nwc-payer.js';
import type { ConformanceOptions } from './options.js';
import type { CheckResult, ConformanceResult, RunFootprint } from './result.js';
import { footprintOf, makeOwnAccounts, type OwnAccounts } from './run-accounts.js';
import { CHECK_OUTCOMES, PROFILES, type CheckOutcome, type Profile } from './vocabulary.js';

export { ConformanceUsageError } from './check-errors.js';

/** What the accounts API names the accounts a run makes. */
const OWN_ACCOUNT_NAME = 'lnpr conformance run';

/**
 * Runs the suite; resolves with every check's result. Throws TargetUnreachable or
 * ConformanceUsageError. With `adminKey` it runs in accounts of its own, deleted at the end.
 */
export async function runConformance(options: ConformanceOptions, checks: readonly Check[] = ALL_CHECKS): Promise<ConformanceResult> {
  const started = performance.now();
  const profile: Profile = options.profile ?? 'core';
  if (!PROFILES.includes(profile)) throw new ConformanceUsageError(`unknown profile "${profile}": ${PROFILES.slice(0, -1).join(', ')} or ${PROFILES.at(-1)}`);
  if (options.minAmount !== undefined && !(Number.isSafeInteger(options.minAmount) && options.minAmount >= 1)) {
    throw new ConformanceUsageError(`minAmount must be a whole number of sats, at least 1`);
  }
  if (options.payerNwcUrl !== undefined && options.payInvoice !== undefined) throw new ConformanceUsageError('give one way to pay: a pay command (payInvoice, --pay-command) or an NWC wallet (payerNwcUrl, --payer-nwc-url), not both');
  const selected = checks.filter((check) => profile === 'full' || check.profile === profile);
  const clientOptions: Omit<ApiClientOptions, 'apiKey'> = {
    baseUrl: options.baseUrl,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.concurrency ? { concurrency: options.concurrency } : {}),
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
  };
  if (options.adminKey === undefined) {
    if (options.apiKey === undefined) throw new ConformanceUsageError('an API key (apiKey) is required, or an admin key (adminKey) to run in accounts of its own');
    const keys = { apiKey: options.apiKey, ...(options.readOnlyKey ? { readOnlyKey: options.readOnlyKey } : {}), ...(options.nwcKey ? { nwcKey: options.nwcKey } : {}) };
    return runChecks(options, checks, selected, profile, clientOptions, keys, undefined, started);
  }
  const admin = new ApiClient({ ...clientOptions, apiKey: options.adminKey });
  // Reachability first: a target that does not answer HTTP is a usage problem, not 50 failures.
  await admin.get('/api/v1/payment-requests/pr_conformance_probe', { key: null });
  const own = await makeOwnAccounts(admin, { nwc: selected.some((check) => check.needs?.includes('nwcKey')), name: OWN_ACCOUNT_NAME });
  return runChecks(options, checks, selected, profile, clientOptions, { ...own.keys, adminKey: options.adminKey }, own, started);
}

/** Runs the selected checks with `keys`; deletes the run's own accounts (if any) at the end, however it ends. */
async function runChecks(
  options: ConformanceOptions,
  checks: readonly Check[],
  selected: readonly Check[],
  profile: Profile,
  clientOptions: Omit<ApiClientOptions, 'apiKey'>,
  keys: ResolvedKeys,
  own: OwnAccounts | undefined,
  started: number,
): Promise<ConformanceResult> {
  const client = new ApiClient({ ...clientOptions, apiKey: keys.apiKey, keyRoles: { 'read-only': keys.readOnlyKey, nwc: keys.nwcKey } });
  const warnings: string[] = [];
  let footprint: RunFootprint | undefined;
  let lifecycle: LifecycleDriver | undefined;
  let payer: NwcPayer | undefined;
  let results: CheckResult[];
  let observations: Record<string, string>;
  try {
    // Reachability first: a target that does not answer HTTP is a usage problem, not 50 failures.
    await client.get('/api/v1/payment-requests/pr_conformance_probe');
    if (options.payerNwcUrl !== undefined && profile === 'core') warnings.push('payerNwcUrl is not used: the core profile pays nothing (use lifecycle or full)');
    else if (options.payerNwcUrl !== undefined) payer = await connectPayer(options.payerNwcUrl);
    lifecycle = await chooseLifecycle(client, profile, options, payer);
    ({ results, observations } = await runSelected(client, lifecycle, keys, options, checks, selected, warnings));
  } finally {
    payer?.close();
    if (own !== undefined) {
      const removal = await own.remove();
      warnings.push(...removal.warnings);
      footprint = { isolated: true, accounts: removal.accounts };
    }
  }
  footprint ??= footprintOf(client.v1Answers(), keys.nwcKey === undefined ? ['main'] : ['main', 'nwc'], lifecycle?.clockAdvancedSeconds ?? 0);
  if (observations.network === 'mainnet') warnings.push('the target issues MAINNET invoices: paying them moves real bitcoin');
  const counts = countOutcomes(results);
  return {
    passed: counts.failed === 0 && counts['unexpected-pass'] === 0,
    baseUrl: client.baseUrl,
    profile,
    lifecycle: lifecycle?.kind ?? 'none',
    checks: results,
    observations,
    warnings,
    footprint,
    counts,
    durationMs: performance.now() - started,
  };
}

/** Runs the checks, `last` ones after the others; the results in the order of `selected`. */
async function runSelected(
  client: ApiClient,
  lifecycle: LifecycleDriver | undefined,
  keys: ResolvedKeys,
  options: ConformanceOptions,
  checks: readonly Check[],
  selected: readonly Check[],
  warnings: string[],
): Promise<{ results: CheckResult[]; observations: Record<string, string> }> {
  const known = new Set(options.knownFailing ?? []);
  const unknownIds = [...known].filter((id) => !checks.some((check) => check.id === id));
  warnings.push(...unknownIds.map((id) => `known-failing lists "${id}", which is not a check id`));
  const observations: Record<string, string> = {};
  const sharedValues = new Map<string, Promise<unknown>>();
  const context: CheckContext = {
    client,
    options: {
      ...keys,
      ...(options.minAmount !== undefined ? { minAmount: options.minAmount } : {}),
      ...(options.inPage === true ? { inPage: true } : {}),
    },
    lifecycle,
    observe: (point, reading) => {
      observations[point] = reading;
    },
    shared: <T>(name: string, make: () => Promise<T>) => {
      if (!sharedValues.has(name)) sharedValues.set(name, make());
      return sharedValues.get(name) as Promise<T>;
    },
  };

  const results: CheckResult[] = [];
  // What checks read before the run changes anything (a failed read fails its check, in its run).
  await Promise.allSettled(selected.filter((check) => missingNeed(check, context) === undefined).map(async (check) => check.before?.(context)));
  // Checks marked `last` review what the others received, so they start when the others are done,
  // and after what any of them asks first (a failed ask fails its check, in its run).
  for (const batch of [selected.filter((check) => !check.last), selected.filter((check) => check.last)]) {
    await Promise.allSettled(batch.filter((check) => missingNeed(check, context) === undefined).map(async (check) => check.ask?.(context)));
    const queue = [...batch];
    const workers = Array.from({ length: Math.max(1, options.concurrency ?? 4) }, async () => {
      for (let check = queue.shift(); check !== undefined; check = queue.shift()) {
        const result = await runOne(check, context, known.has(check.id));
        results.push(result);
        options.onCheck?.(result);
      }
    });
    await Promise.all(workers);
  }

  const order = new Map(selected.map((check, index) => [check.id, index]));
  results.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
  return { results, observations };
}

/**
 * Connects to the payer's wallet (loaded only now: a run without a payer never loads WebSocket
 * code). A URI it cannot use, or a wallet it cannot reach, is a usage problem: the run does not start.
 */
async function connectPayer(uri: string): Promise<NwcPayer> {
  const { connectNwcPayer, NwcPayerError } = await import('./nwc-payer.js');
  try {
    return await connectNwcPayer(uri);
  } catch (error) {
    if (error instanceof NwcPayerError) throw new ConformanceUsageError(`payerNwcUrl (--payer-nwc-url): ${error.message}`);
    throw error;
  }
}

async function chooseLifecycle(client: ApiClient, profile: Profile, options: ConformanceOptions, payer: NwcPayer | undefined): Promise<LifecycleDriver | undefined> {
  if (profile === 'core') return undefined;
  const controls = (await detectControls(client)) ? controlsDriver(client) : undefined;
  if (payer !== undefined) return nwcPayerDriver((invoice) => payer.pay(invoice), payer.description, controls);
  if (controls !== undefined) return controls;
  if (options.payInvoice) return payCommandDriver(options.payInvoice);
  throw new ConformanceUsageError(
    `the ${profile} profile needs a way to move payment requests on: the target has no /sandbox/v1 control API, so give a pay command (--pay-command 'CMD {invoice}') or an NWC wallet that pays (--payer-nwc-url URI)`,
  );
}

async function runOne(check: Check, context: CheckContext, knownFailing: boolean): Promise<CheckResult> {
  const started = performance.now();
  const base = { id: check.id, title: check.title, section: check.section, level: check.level, profile: check.profile };
  const missing = missingNeed(check, context);
  if (missing !== undefined) {
    return { ...base, outcome: 'skipped', message: `needs ${NEED_HINTS[missing]}`, durationMs: 0 };
  }
  let outcome: CheckOutcome;
  let message: string | undefined;
  try {
    await check.run(context);
    outcome = knownFailing ? 'unexpected-pass' : 'passed';
    if (knownFailing) message = 'listed as known-failing but passes: remove it from the list';
  } catch (error) {
    if (error instanceof TargetUnreachable) throw error;
    if (error instanceof CheckSkipped) {
      outcome = 'skipped';
    } else {
      outcome = knownFailing ? 'known-failure' : check.level === 'SHOULD' ? 'warned' : 'failed';
    }
    message = error instanceof CheckFailure || error instanceof CheckSkipped ? error.message : `the check threw: ${(error as Error).stack ?? String(error)}`;
  }
  return { ...base, outcome, ...(message !== undefined ? { message } : {}), durationMs: performance.now() - started };
}

/** The first thing the check needs that the run lacks, or undefined. */
function missingNeed(check: Check, context: CheckContext): CheckNeed | undefined {
  return (check.needs ?? []).find((need) => {
    if (need === 'controls') return context.lifecycle?.controls !== true;
    if (need === 'nwcPayer') return context.lifecycle?.kind !== 'nwc-payer';
    if (need === 'httpServer') return context.options.inPage === true;
    return context.options[need] === undefined;
  });
}

const NEED_HINTS = {
  readOnlyKey: 'a read-only key (--read-only-key)',
  adminKey: 'a key with the accounts permission (--admin-key)',
  nwcKey: 'a key of an NWC account (--nwc-key)',
  controls: "the target's /sandbox/v1 control API",
  nwcPayer: 'an NWC wallet that pays invoices (--payer-nwc-url), in the lifecycle or full profile',
  httpServer: 'an HTTP server (the run was told the target runs in the page, inPage: MSW handlers have no CORS to guard)',
} as const;

function countOutcomes(results: CheckResult[]): Record<CheckOutcome, number> {
  const counts = Object.fromEntries(CHECK_OUTCOMES.map((outcome) => [outcome, 0])) as Record<CheckOutcome, number>;
  for (const result of results) counts[result.outcome]++;
  return counts;
}
