/**
 * Runs a loaded scenario against a server with the control API, step by step, and stops at the
 * first step that fails. Uses `fetch` only, so it runs in browsers as well as in the CLI; webhook
 * receivers and wallet payments need a transport handed in (`startReceiver`, `payThroughWallet`;
 * the CLI gives node:http and a WebSocket).
 */
import { checkExpectations, checkNoAnswer, render, type Mismatch, type NoAnswer, type StepResponse } from './expectations.js';
import { checkReceived, deliveriesToWaitFor, describeDeliveries } from './received-expectations.js';
import { ReceiverLog, type ReceiverHandle, type StartReceiver } from './receiver-log.js';
import { resolveReferences, UnresolvedReferenceError } from './references.js';
import { actionOf, type RawRequest, type Scenario, type Step } from './scenario-schema.js';
import { sendRequest, TargetUnreachableError, type FetchLike } from './send-request.js';
import { describeStep, requestOf } from './step-request.js';
import { checkWalletPayment, WALLET_TIMEOUT_MS, walletAnswerBody, type PayThroughWallet, type WalletAnswer } from './wallet-pay.js';

export { TargetUnreachableError, type FetchLike } from './send-request.js';
export type { StartReceiver } from './receiver-log.js';
export type { PayThroughWallet, WalletAnswer } from './wallet-pay.js';

/** How long `events` and `deliveries` steps ask again for, until their expectations hold (unless `within` says). */
export const POLL_TIMEOUT_MS = 5_000;
const POLL_INTERVAL_MS = 100;

/** How to run a scenario. */
export interface RunScenarioOptions {
  /** The server, e.g. `http://127.0.0.1:8787`. */
  baseUrl: string;
  /** The `default` key: steps without `key:` use it, and the scenario's rules go to its account. */
  apiKey: string;
  /** Named keys that win over the file's `keys` (the CLI's `--key name=KEY`). */
  keys?: Record<string, string>;
  /** `globalThis.fetch` unless given. */
  fetch?: FetchLike;
  /** How long one request may take before the target counts as unreachable; 30 s by default. */
  timeoutMs?: number;
  /** Called as each step (and each rules install or removal) finishes, for progress output. */
  onStep?: (result: StepResult) => void;
  /** Starts a webhook receiver for `receiver` steps (Node: `nodeReceivers()`); without it they fail. */
  startReceiver?: StartReceiver;
  /** How long a `received` step waits for its deliveries; 5 s by default. */
  receiveTimeoutMs?: number;
  /** How long `events` and `deliveries` steps retry until their expectations hold; 5 s by default. */
  pollTimeoutMs?: number;
  /** Pays for `walletPay` steps (Node: `nodeWalletPayer()`); without it they fail. */
  payThroughWallet?: PayThroughWallet;
  /** How long a wallet has to answer a `walletPay` step; 10 s by default. */
  walletTimeoutMs?: number;
}

/** What happened to one step. */
export interface StepResult {
  /** 1-based step number; null for the runner's own calls (installing and removing the scenario's rules). */
  index: number | null;
  label: string;
  passed: boolean;
  durationMs: number;
  /** The expectations that did not hold. */
  mismatches: Mismatch[];
  /** Why the step failed when it is not a mismatch (an unknown reference, rules that would not install). */
  error?: string;
  request?: RawRequest;
  response?: StepResponse;
  /** More to show when it failed, one line each (what a receiver got). */
  details?: string[];
}

/** What happened to a scenario. */
export interface ScenarioResult {
  name: string;
  passed: boolean;
  /** The steps that ran, in order, with the runner's own calls among them (`index: null`). */
  steps: StepResult[];
  /** Steps left out after the first failure. */
  notRun: number;
}

/**
 * Runs `scenario`. A failed expectation ends the run with a failed result; a target that does not
 * answer at all throws `TargetUnreachableError`, since then nothing about the scenario is known.
 */
export async function runScenario(scenario: Scenario, options: RunScenarioOptions): Promise<ScenarioResult> {
  const fetchFn = options.fetch ?? ((url, init) => globalThis.fetch(url, init));
  const keys: Record<string, string> = { ...scenario.keys, ...options.keys, default: options.apiKey };
  const results: Record<string, unknown> = {};
  const outcomes: StepResult[] = [];
  const record = (result: StepResult): StepResult => {
    outcomes.push(result);
    options.onStep?.(result);
    return result;
  };
  const send = (key: string | null, request: RawRequest) => sendRequest(fetchFn, options.baseUrl, key, request, options.timeoutMs);

  const putRules = async (label: string, rules: unknown[]): Promise<StepResult> => {
    const started = performance.now();
    const request: RawRequest = { method: 'PUT', path: '/sandbox/v1/rules', body: { rules } };
    const response = await send(options.apiKey, request);
    const mismatches = checkExpectations(undefined, response);
    return { index: null, label, passed: mismatches.length === 0, durationMs: performance.now() - started, mismatches, request, response };
  };
  /** Receivers by their `as` name; stopped when the scenario ends, however it ends. */
  const receivers = new Map<string, { log: ReceiverLog; handle: ReceiverHandle }>();
  /** Endpoints the `webhook` steps registered, with the key that did: removed at the end. */
  const endpoints: Array<{ id: string; key: string }> = [];
  const removeEndpoint = async ({ id, key }: { id: string; key: string }): Promise<StepResult> => {
    const started = performance.now();
    const request: RawRequest = { method: 'DELETE', path: `/sandbox/v1/webhook-endpoints/${encodeURIComponent(id)}` };
    const response = await send(key, request);
    // 404: a step removed it already.
    const mismatches = response.status === 404 ? [] : checkExpectations(undefined, response);
    const label = `remove the scenario's webhook endpoint ${id}`;
    return { index: null, label, passed: mismatches.length === 0, durationMs: performance.now() - started, mismatches, request, response };
  };

  const rules = scenario.rules ?? [];
  const installLabel = `install the scenario's rules: ${rules.map((rule, i) => rule.name ?? `rule ${i + 1}`).join(', ')}`;
  let failedAt: number | undefined;
  /** Whether the step just run reset the default key's account with `all` (rules included). */
  let resetAll = false;
  try {
    if (rules.length > 0 && !record(await putRules(installLabel, rules)).passed) failedAt = 0;

    for (let i = 0; failedAt === undefined && i < scenario.steps.length; i++) {
      const step = scenario.steps[i]!;
      resetAll = false;
      if (!record(await runStep(step, i + 1)).passed) failedAt = i + 1;
      // A full reset of the default key's account removed the scenario's rules with the rest.
      else if (resetAll && rules.length > 0 && !record(await putRules(`${installLabel} (again, after the full reset)`, rules)).passed) failedAt = i + 1;
    }
    // Left behind, an endpoint would send the next scenario's events to a receiver that is gone.
    for (const endpoint of endpoints) record(await removeEndpoint(endpoint));
    if (rules.length > 0) record(await putRules("remove the scenario's rules", []));
  } finally {
    await Promise.all([...receivers.values()].map(({ handle }) => handle.close()));
  }

  return {
    name: scenario.name,
    passed: outcomes.every((outcome) => outcome.passed),
    steps: outcomes,
    notRun: failedAt === undefined ? 0 : scenario.steps.length - failedAt,
  };

  async function runStep(step: Step, index: number): Promise<StepResult> {
    const started = performance.now();
    let resolved: Step;
    try {
      resolved = resolveReferences(step, { results, keys });
    } catch (error) {
      if (!(error instanceof UnresolvedReferenceError)) throw error;
      return { index, label: describeStep(step), passed: false, durationMs: performance.now() - started, mismatches: [], error: error.message };
    }
    const label = describeStep(step, resolved);
    if (resolved.key !== undefined && typeof resolved.key !== 'string') {
      return { index, label, passed: false, durationMs: performance.now() - started, mismatches: [], error: `key must be a string, got ${render(resolved.key)}` };
    }
    const action = actionOf(resolved);
    if (action === 'receiver') return startReceiverStep(resolved, index, label, started);
    if (action === 'received') return receivedStep(resolved, index, label, started);
    if (action === 'walletPay') return walletPayStep(resolved, index, label, started);

    // A name from `keys` (or `default`) stands for its key; anything else is a key written out.
    const key = resolved.key === undefined ? options.apiKey : Object.hasOwn(keys, resolved.key) ? keys[resolved.key]! : resolved.key;
    const request = requestOf(resolved);
    /** The answer, or none when the step expects none (`dropped`): a reset or hang fault closed the connection. */
    const exchange = async (): Promise<StepResponse | NoAnswer> => {
      const sent = performance.now();
      try {
        return await send(key, request);
      } catch (error) {
        if (!(error instanceof TargetUnreachableError) || resolved.expect?.dropped !== true) throw error;
        return { reason: error.message, durationMs: performance.now() - sent };
      }
    };
    const check = (outcome: StepResponse | NoAnswer) => ('reason' in outcome ? checkNoAnswer(resolved.expect, outcome) : checkExpectations(resolved.expect, outcome));
    let outcome = await exchange();
    let mismatches = check(outcome);
    // Deliveries happen in the background: the log may lag a moment behind what a receiver saw.
    // `within` asks the same for other steps that only read (an NWC payment completes a moment later).
    const askFor = resolved.within !== undefined ? resolved.within * 1000 : action === 'events' || action === 'deliveries' ? (options.pollTimeoutMs ?? POLL_TIMEOUT_MS) : 0;
    const deadline = performance.now() + askFor;
    while (mismatches.length > 0 && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
      outcome = await exchange();
      mismatches = check(outcome);
    }
    const durationMs = performance.now() - started;
    if ('reason' in outcome) {
      const passed = mismatches.length === 0;
      if (passed && step.as !== undefined) results[step.as] = null;
      return { index, label, passed, durationMs, mismatches, request, ...(passed ? {} : { details: [`no answer: ${outcome.reason}`] }) };
    }
    const response = outcome;
    if (action === 'webhook') noteEndpoint(key, resolved.webhook!.url, response);
    if (action === 'reset' && resolved.reset === 'all' && key === options.apiKey) resetAll = true;
    if (mismatches.length === 0 && step.as !== undefined) results[step.as] = response.body;
    return { index, label, passed: mismatches.length === 0, durationMs, mismatches, request, response };
  }

  async function walletPayStep(step: Step, index: number, label: string, started: number): Promise<StepResult> {
    const fail = (error: string): StepResult => ({ index, label, passed: false, durationMs: performance.now() - started, mismatches: [], error });
    if (options.payThroughWallet === undefined) return fail('this runner cannot pay through a wallet (runScenario needs a payThroughWallet; the lnpr CLI has one)');
    const { nwcUrl, invoice } = step.walletPay!;
    // References keep their type: a reference to a number or an object is no URI or invoice.
    if (typeof nwcUrl !== 'string') return fail(`walletPay.nwcUrl must be a connection URI, got ${typeof nwcUrl}`);
    if (typeof invoice !== 'string') return fail(`walletPay.invoice must be an invoice, got ${render(invoice)}`);
    const timeoutMs = options.walletTimeoutMs ?? WALLET_TIMEOUT_MS;
    let answer: WalletAnswer;
    try {
      answer = await options.payThroughWallet({ nwcUrl, invoice, timeoutMs });
    } catch (error) {
      return fail(`no answer from the wallet: ${error instanceof Error ? error.message : String(error)}`);
    }
    const mismatches = checkWalletPayment(step.expect, answer);
    const passed = mismatches.length === 0;
    if (passed && step.as !== undefined) results[step.as] = walletAnswerBody(answer);
    return { index, label, passed, durationMs: performance.now() - started, mismatches, ...(passed ? {} : { details: [`the wallet answered ${JSON.stringify(walletAnswerBody(answer))}`] }) };
  }

  /** Keeps a registered endpoint for removal, and tells a receiver at its URL the secret. */
  function noteEndpoint(key: string, url: string, response: StepResponse): void {
    const body = response.body as { id?: unknown; secret?: unknown } | null;
    if (response.status < 200 || response.status > 299 || body === null || typeof body !== 'object') return;
    if (typeof body.id === 'string') endpoints.push({ id: body.id, key });
    if (typeof body.secret !== 'string') return;
    for (const { log, handle } of receivers.values()) if (sameOrigin(handle.url, url)) log.setSecret(body.secret);
  }

  async function startReceiverStep(step: Step, index: number, label: string, started: number): Promise<StepResult> {
    const fail = (error: string): StepResult => ({ index, label, passed: false, durationMs: performance.now() - started, mismatches: [], error });
    if (options.startReceiver === undefined) return fail('this runner cannot start webhook receivers (runScenario needs a startReceiver; the lnpr CLI has one)');
    const answer = typeof step.receiver === 'object' ? step.receiver.answer : undefined;
    const log = new ReceiverLog(answer === undefined ? undefined : [answer].flat());
    let handle: ReceiverHandle;
    try {
      handle = await options.startReceiver(log);
    } catch (error) {
      return fail(`cannot start a webhook receiver: ${(error as Error).message}`);
    }
    const name = step.as!;
    await receivers.get(name)?.handle.close();
    receivers.set(name, { log, handle });
    results[name] = { url: handle.url };
    return { index, label: `${label}: ${handle.url}`, passed: true, durationMs: performance.now() - started, mismatches: [] };
  }

  async function receivedStep(step: Step, index: number, label: string, started: number): Promise<StepResult> {
    const receiver = receivers.get(step.received!);
    if (receiver === undefined) {
      const known = [...receivers.keys()];
      return { index, label, passed: false, durationMs: performance.now() - started, mismatches: [], error: `no receiver named "${step.received}" (${known.length > 0 ? `receivers: ${known.join(', ')}` : 'none started'})` };
    }
    const deliveries = await receiver.log.waitFor(deliveriesToWaitFor(step.expect), options.receiveTimeoutMs === undefined ? {} : { timeoutMs: options.receiveTimeoutMs });
    const mismatches = checkReceived(step.expect, deliveries);
    const passed = mismatches.length === 0;
    // A copy: a delivery verified later must not change what an earlier step saw.
    if (passed && step.as !== undefined) results[step.as] = { data: structuredClone(deliveries) };
    return { index, label, passed, durationMs: performance.now() - started, mismatches, ...(passed ? {} : { details: describeDeliveries(deliveries) }) };
  }
}

/** Whether `url` points at the receiver at `receiverUrl` (same scheme, host and port; any path). */
function sameOrigin(receiverUrl: string, url: string): boolean {
  try {
    return new URL(receiverUrl).origin === new URL(url).origin;
  } catch {
    return false;
  }
}
