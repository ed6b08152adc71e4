/**
 * The report for people: one line per case as it finishes (`✓ id  title → 204 (3 ms)`), the
 * reasons and the receiver's answers below a case that did not hold, then a summary ending in
 * the line CI tooling looks for: `N passed, M failed, K warned`. Pure functions returning text;
 * the colours and the duration format are src/reporting's, so both commands read alike.
 */
import { formatDuration, paint, type PrettyOptions } from '../../reporting/pretty-text.js';
import { deliveryHeld, type CaseResult, type DeliveryRecord, type WebhookCheckResult } from '../result.js';

/** The longest piece of a response body a line shows (the JSON report has all 512 bytes). */
const EXCERPT_CHARS = 200;

/** What one delivery got: `204`, `302 redirect`, or `no answer`. */
function formatAnswer(delivery: DeliveryRecord): string {
  if (delivery.verdict === 'no-answer') return 'no answer';
  return delivery.verdict === 'redirected' ? `${delivery.status} redirect` : String(delivery.status);
}

/** What one delivery got, in words: `accepted (200)`, `refused (401)`, `redirected (302 to /login)`, `no answer (…)`. */
function formatVerdict(delivery: DeliveryRecord): string {
  switch (delivery.verdict) {
    case 'no-answer':
      return `no answer (${delivery.error})`;
    case 'redirected':
      return `redirected (${delivery.status}${delivery.location !== undefined ? ` to ${delivery.location}` : ''})`;
    default:
      return `${delivery.verdict} (${delivery.status})`;
  }
}

/**
 * A case's answers, short: `204`; `401 ×4` when every delivery got the same; each labelled with its
 * event type when they differ across types (`created 401, completed 200, …`), so the odd one is named.
 */
function formatAnswers(deliveries: DeliveryRecord[]): string {
  const answers = deliveries.map(formatAnswer);
  if (answers.length > 1 && answers.every((answer) => answer === answers[0])) return `${answers[0]} ×${answers.length}`;
  const labelled = new Set(deliveries.map((delivery) => delivery.eventType)).size > 1;
  return deliveries.map((delivery, index) => (labelled ? `${shortType(delivery.eventType)} ${answers[index]}` : answers[index])).join(', ');
}

/** `completed` of `payment_request.completed`: the part that differs between event types. */
function shortType(eventType: string): string {
  return eventType.slice(eventType.lastIndexOf('.') + 1);
}

/** What the deliveries that missed got, grouped by answer: `accepted (200)`, or `accepted (200) for payment_request.failed` when others held. */
function formatMisses(result: CaseResult): string {
  const misses = result.deliveries.filter((delivery) => !deliveryHeld(result.expect, delivery));
  const typesByVerdict = new Map<string, Set<string>>();
  for (const delivery of misses) {
    const verdict = formatVerdict(delivery);
    typesByVerdict.set(verdict, (typesByVerdict.get(verdict) ?? new Set()).add(delivery.eventType));
  }
  const whole = misses.length === result.deliveries.length && typesByVerdict.size === 1;
  return [...typesByVerdict].map(([verdict, types]) => (whole ? verdict : `${verdict} for ${[...types].join(', ')}`)).join(', ');
}

/** One delivery as a line of a log: what was sent, what came back, how fast, and the start of the body. */
export function formatDeliveryLine(delivery: DeliveryRecord): string {
  const sent = [
    delivery.eventType,
    delivery.webhookId !== undefined ? `webhook-id ${delivery.webhookId}` : 'no webhook-id',
    delivery.timestamp !== undefined ? `webhook-timestamp ${delivery.timestamp}` : 'no webhook-timestamp',
  ].join(', ');
  const body = delivery.responseExcerpt ? `; response: ${oneLine(delivery.responseExcerpt).slice(0, EXCERPT_CHARS)}` : '';
  return `POST ${sent} (${delivery.note}): ${formatVerdict(delivery)} in ${formatDuration(delivery.durationMs)}${body}`;
}

/**
 * The line(s) of one finished case: a mark, the id, the title, the answers, the time; then,
 * unless it passed, why and what the receiver said to the deliveries that missed.
 */
export function formatCaseLine(result: CaseResult, options: PrettyOptions = {}): string {
  const mark = { passed: paint('✓', 'green', options), failed: paint('✗', 'red', options), warned: paint('! warned', 'yellow', options) }[result.outcome];
  const head = `${mark} ${paint(result.id, 'bold', options)}  ${result.title} → ${formatAnswers(result.deliveries)} ${paint(`(${formatDuration(result.durationMs)})`, 'dim', options)}`;
  if (result.outcome === 'passed') return head;
  const responses = result.deliveries
    .filter((delivery) => delivery.responseExcerpt && !deliveryHeld(result.expect, delivery))
    .map((delivery) => `response ${delivery.status}: ${oneLine(delivery.responseExcerpt!).slice(0, EXCERPT_CHARS)}`);
  // The same answer to every event type is said once.
  const lines = new Set([...(result.message ?? '').split('\n'), ...responses]);
  return [head, ...[...lines].filter((line) => line !== '').map((line) => `    ${line}`)].join('\n');
}

/**
 * The summary after the cases: counts, each required case that failed and each advisory one
 * that did not hold (with what the receiver did to the deliveries that missed), the duration,
 * and last, alone on its line, `N passed, M failed, K warned`.
 */
export function formatSummary(result: WebhookCheckResult, options: PrettyOptions = {}): string {
  const required = result.cases.filter((c) => c.level === 'required').length;
  const lines = [
    '',
    `${paint('Webhook check', 'bold', options)} of ${result.url}: ${result.cases.length} cases (${required} required, ${result.cases.length - required} advisory)`,
  ];
  const listed = (outcome: 'failed' | 'warned', heading: string, verb: string) => {
    const cases = result.cases.filter((c) => c.outcome === outcome);
    if (cases.length === 0) return;
    const width = Math.max(...cases.map((c) => c.id.length));
    lines.push('', paint(heading, outcome === 'failed' ? 'red' : 'yellow', options));
    for (const c of cases) {
      lines.push(`  ${c.id.padEnd(width)}  ${formatMisses(c)}; ${verb} ${c.expect === 'accept' ? 'accepted' : 'refused'}`);
    }
  };
  listed('failed', 'Failed (required):', 'must be');
  listed('warned', 'Warned (advisory):', 'should be');
  lines.push('', `Duration: ${formatDuration(result.durationMs)}`, formatCountsLine(result));
  return lines.join('\n');
}

/** The last line: `N passed, M failed, K warned`. */
export function formatCountsLine(result: Pick<WebhookCheckResult, 'counts'>): string {
  return `${result.counts.passed} passed, ${result.counts.failed} failed, ${result.counts.warned} warned`;
}

/** The whole report as one text: every case line, then the summary. */
export function formatPretty(result: WebhookCheckResult, options: PrettyOptions = {}): string {
  return `${[...result.cases.map((c) => formatCaseLine(c, options)), formatSummary(result, options)].join('\n')}\n`;
}

/**
 * A receiver's answer on one line, safe for a terminal: its control characters (ANSI escapes
 * among them, which could move the cursor or repaint earlier lines) are shown as `\uXXXX`.
 */
function oneLine(text: string): string {
  return text
    .replace(/\s*\r?\n\s*/g, ' ')
    .trim()
    .replace(/[\u0000-\u001F\u007F-\u009F]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
