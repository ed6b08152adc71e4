/**
 * `lnpr trigger TYPE`: makes a sandbox emit one event of TYPE now, for a receiver under
 * development, and prints the event's id alone on stdout (so `ID=$(lnpr trigger …)` works). It
 * creates a payment request through `/api/v1` and moves it on through the control API
 * (`/sandbox/v1/payment-requests/{id}/complete | fail | expire`), never by moving the account's
 * clock, so triggers (and anything else on the account) may run side by side. Exit status: 0 the
 * id was printed; 1 the sandbox refused a call (its status and error code said); 2 bad usage or a
 * sandbox that does not answer.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { EVENT_TYPES, type EventType, type WebhookEvent } from '../schemas/webhooks.js';
import { parseBaseUrl, wholeNumber } from './args.js';
import { PROCESS_IO, type CommandIo } from './report-command.js';
import { callSandbox, SandboxHttpError, SandboxUnreachable, type SandboxTarget } from './sandbox-client.js';
import { UsageError } from './usage-error.js';

/** The usage text of `lnpr trigger`. */
export const TRIGGER_USAGE = `Usage: lnpr trigger TYPE --base-url URL --api-key KEY [--amount N]

  Makes the sandbox emit an event of TYPE now: creates a payment request and moves it on through
  the control API (complete, fail or expire; never by moving the clock, so triggers may run side
  by side). The sandbox delivers it to the account's webhook endpoints and live streams as any
  other event; the event's id is printed alone on stdout.

  TYPE             ${EVENT_TYPES.join(',\n                   ')}
  --base-url URL   the sandbox, e.g. http://127.0.0.1:8787
  --api-key KEY    a key that may create, e.g. sk_test_custodial
  --amount N       the payment request's amount in sats (default 1000)

  Exit status: 0 the event's id was printed; 1 the sandbox refused a call (its status and error
  code are printed); 2 bad usage or a sandbox that cannot be reached.
`;

/** The flags `lnpr trigger` parses (its usage text above lists each: a test holds it). */
export const TRIGGER_OPTIONS = {
  'base-url': { type: 'string' },
  'api-key': { type: 'string' },
  amount: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies NonNullable<ParseArgsConfig['options']>;

/** The control API's move of a pending request that emits each type; `created` needs none. */
const TRANSITION: Record<EventType, 'complete' | 'fail' | 'expire' | undefined> = {
  'payment_request.created': undefined,
  'payment_request.completed': 'complete',
  'payment_request.failed': 'fail',
  'payment_request.expired': 'expire',
};

/** Where a triggered request pays to: an address of the reserved example domain. */
export const TRIGGER_DESTINATION = 'trigger@example.com';

/** Runs `lnpr trigger <args>`; sets the exit code to 1 when the sandbox refused a call. */
export async function trigger(args: string[], io: CommandIo = PROCESS_IO): Promise<void> {
  const { values, positionals } = parseOptions(args);
  if (values.help || (positionals.length === 0 && Object.keys(values).length === 0)) {
    io.stdout.write(TRIGGER_USAGE);
    return;
  }
  if (positionals.length === 0) throw new UsageError(`lnpr trigger needs an event TYPE, one of ${EVENT_TYPES.join(', ')} (lnpr trigger --help)`);
  if (positionals.length > 1) throw new UsageError(`lnpr trigger takes one event TYPE (got ${positionals.length}) (lnpr trigger --help)`);
  const type = parseType(positionals[0]!);
  const baseUrl = parseBaseUrl(values['base-url']);
  const apiKey = values['api-key'];
  if (apiKey === undefined || apiKey === '') throw new UsageError('--api-key KEY is required (a key that may create, e.g. sk_test_custodial)');
  const amount = values.amount === undefined ? 1000 : wholeNumber('--amount', values.amount, 1);

  try {
    const event = await triggerEvent({ baseUrl, apiKey }, type, amount);
    io.stdout.write(`${event.id}\n`);
  } catch (error) {
    if (error instanceof SandboxUnreachable) throw new UsageError(error.message);
    if (!(error instanceof SandboxHttpError)) throw error;
    io.stderr.write(`lnpr: ${error.message}\n`);
    process.exitCode = 1;
  }
}

/** Makes the sandbox at `target` emit an event of `type`; the event, as `GET /sandbox/v1/events/{id}` shows it. */
export async function triggerEvent(target: SandboxTarget, type: EventType, amount = 1000): Promise<WebhookEvent> {
  const created = await callSandbox<{ id: string }>(target, 'POST', '/api/v1/payment-requests', {
    body: { amount, description: `Triggered by lnpr trigger (${type})`, destinationWallet: TRIGGER_DESTINATION },
  });
  const transition = TRANSITION[type];
  const id = encodeURIComponent(created.id);
  if (transition !== undefined) await callSandbox(target, 'POST', `/sandbox/v1/payment-requests/${id}/${transition}`);
  // The event is stored with the change itself, so it is there at once; asking a few times more
  // costs nothing and spares a flaky failure should that ever change.
  const path = `/sandbox/v1/events?paymentRequest=${id}&type=${encodeURIComponent(type)}&limit=1`;
  for (let attempt = 0; ; attempt += 1) {
    const { data } = await callSandbox<{ data: WebhookEvent[] }>(target, 'GET', path);
    if (data[0] !== undefined) return data[0];
    if (attempt === 9) throw new SandboxHttpError('GET', path, 200, undefined, `no ${type} event of ${created.id} was listed`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function parseType(text: string): EventType {
  if (!(EVENT_TYPES as readonly string[]).includes(text)) {
    throw new UsageError(`unknown event type "${text.slice(0, 64)}"; TYPE is one of ${EVENT_TYPES.join(', ')}`);
  }
  return text as EventType;
}

function parseOptions(args: string[]) {
  try {
    return parseArgs({
      args,
      strict: true,
      allowPositionals: true,
      options: TRIGGER_OPTIONS,
    });
  } catch (error) {
    throw new UsageError(`${(error as Error).message} (lnpr trigger --help)`);
  }
}
