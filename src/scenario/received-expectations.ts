/**
 * Checks a `received` step's `expect` against the deliveries a receiver got: how many, their event
 * types in order, their bodies, their signatures and their webhook-ids. Mismatches read like the
 * HTTP ones (`events[1].data.status: "completed"`).
 */
import { compare, render, type Mismatch } from './expectations.js';
import type { ReceivedDelivery } from './receiver-log.js';
import type { Expectation } from './scenario-schema.js';

/** How many deliveries a `received` step waits for: the most its expectations name, or one. */
export function deliveriesToWaitFor(expect: Expectation | undefined): number {
  const named = [expect?.count, expect?.types?.length, expect?.events?.length].filter((n): n is number => n !== undefined);
  return named.length > 0 ? Math.max(...named) : 1;
}

/** Every way `deliveries` miss `expect`; without `count`, `types` or `events`, at least one delivery must have come. */
export function checkReceived(expect: Expectation | undefined, deliveries: readonly ReceivedDelivery[]): Mismatch[] {
  const out: Mismatch[] = [];
  const rules = expect ?? {};
  if (rules.count !== undefined) {
    if (deliveries.length !== rules.count) out.push({ path: 'count', expected: String(rules.count), actual: String(deliveries.length) });
  } else if (rules.types === undefined && rules.events === undefined && deliveries.length === 0) {
    out.push({ path: 'count', expected: 'at least 1', actual: '0' });
  }
  if (rules.types !== undefined) {
    const types = deliveries.map((delivery) => typeOf(delivery.event));
    // One line with both lists says more than a mismatch per position.
    if (types.length !== rules.types.length || types.some((type, i) => type !== rules.types![i])) {
      out.push({ path: 'types', expected: render(rules.types, 400), actual: render(types, 400) });
    }
  }
  if (rules.events !== undefined) compare(rules.events, deliveries.map((delivery) => delivery.event), 'events', false, out);
  if (rules.verified === true) {
    deliveries.forEach((delivery, i) => {
      if (!delivery.verified) out.push({ path: `deliveries[${i}].verified`, expected: 'true', actual: 'false (the signature does not verify with the endpoint\'s secret)' });
    });
  }
  if (rules.sameWebhookId === true) {
    deliveries.forEach((delivery, i) => {
      const id = idOf(delivery.event);
      if (delivery.webhookId !== id) out.push({ path: `deliveries[${i}].webhook-id`, expected: `the event id ${render(id)}`, actual: render(delivery.webhookId ?? undefined) });
    });
  }
  return out;
}

/** One line per delivery, for the report of a failed step. */
export function describeDeliveries(deliveries: readonly ReceivedDelivery[]): string[] {
  if (deliveries.length === 0) return ['received: nothing'];
  return [
    `received: ${deliveries.length} deliver${deliveries.length === 1 ? 'y' : 'ies'}`,
    ...deliveries.map(
      (delivery, i) =>
        `  ${i + 1}. ${typeOf(delivery.event) ?? '(no type)'} ${idOf(delivery.event) ?? ''} webhook-id ${delivery.webhookId ?? '(none)'}, ${delivery.verified ? 'verified' : 'NOT verified'}, answered ${delivery.answered}`,
    ),
  ];
}

function typeOf(event: unknown): string | undefined {
  const type = isObject(event) ? event.type : undefined;
  return typeof type === 'string' ? type : undefined;
}

function idOf(event: unknown): string | undefined {
  const id = isObject(event) ? event.id : undefined;
  return typeof id === 'string' ? id : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
