/** The event index's bounds: events listed, finished attempts kept, pending ones never let go. */
import { describe, expect, it } from 'vitest';
import type { DeliveryRecord, EventRecord } from '../core/store/webhook-records.js';
import { EventIndex } from './event-index.js';

const event = (n: number, accountId = 'acct_a'): EventRecord =>
  ({ id: `evt_${n}`, accountId, type: 'payment_request.created', timestamp: '2026-01-01T00:00:00.000Z', data: { id: `pr_${n}` } }) as unknown as EventRecord;

const attempt = (n: number, attemptNumber: number, status: DeliveryRecord['status'], accountId = 'acct_a'): DeliveryRecord => ({
  id: `wd_${n}`,
  accountId,
  event: `evt_${n}`,
  endpoint: 'we_1',
  attempt: attemptNumber,
  status,
  responseStatus: status === 'pending' ? null : 500,
  error: status === 'pending' ? null : 'the receiver answered 500',
  scheduledAt: '2026-01-01T00:00:00.000Z',
  attemptedAt: status === 'pending' ? null : '2026-01-01T00:00:00.000Z',
  durationMs: status === 'pending' ? null : 1,
});

/** One write, applied as a store applies it. */
function write(index: EventIndex, change: { events?: EventRecord[]; deliveries?: DeliveryRecord[] }): void {
  for (const e of change.events ?? []) index.putEvent(e);
  for (const d of change.deliveries ?? []) index.putDelivery(d);
  index.endChange();
}

const keys = (deliveries: DeliveryRecord[]) => deliveries.map((d) => `${d.id}#${d.attempt}:${d.status}`);

describe('EventIndex bounds', () => {
  it('keeps the newest finished attempts per account; the first to finish goes first; pending ones stay', () => {
    const index = new EventIndex(100, 3);
    write(index, { events: [event(1), event(2)], deliveries: [attempt(1, 1, 'pending'), attempt(2, 1, 'pending')] });
    // Each failure is written with its retry, as the dispatcher does.
    for (let n = 1; n <= 3; n++) {
      write(index, { deliveries: [attempt(1, n, 'failed'), attempt(1, n + 1, 'pending')] });
      write(index, { deliveries: [attempt(2, n, 'failed'), attempt(2, n + 1, 'pending')] });
    }
    // Six finished, three kept: the newest; both pending retries are there.
    expect(keys(index.deliveriesOf('acct_a'))).toEqual(['wd_2#4:pending', 'wd_1#4:pending', 'wd_2#3:failed', 'wd_1#3:failed', 'wd_2#2:failed']);
    expect(index.getDelivery('wd_1', 1)).toBeUndefined();
    expect(index.getEvent('evt_1')).toBeDefined();
    // A snapshot holds what is kept.
    expect(index.allDeliveries()).toHaveLength(5);
  });

  it('bounds each account apart', () => {
    const index = new EventIndex(100, 2);
    write(index, { events: [event(1, 'acct_a'), event(2, 'acct_b')] });
    for (let n = 1; n <= 4; n++) write(index, { deliveries: [attempt(1, n, 'failed', 'acct_a'), attempt(2, n, 'succeeded', 'acct_b')] });
    expect(keys(index.deliveriesOf('acct_a'))).toEqual(['wd_1#4:failed', 'wd_1#3:failed']);
    expect(keys(index.deliveriesOf('acct_b'))).toEqual(['wd_2#4:succeeded', 'wd_2#3:succeeded']);
  });

  it('an event past the history bound stays, unlisted, while an attempt of it is pending, then goes with its attempts', () => {
    const index = new EventIndex(2, 100);
    write(index, { events: [event(1)], deliveries: [attempt(1, 1, 'pending')] });
    write(index, { events: [event(2)], deliveries: [attempt(2, 1, 'succeeded')] });
    write(index, { events: [event(3)], deliveries: [attempt(3, 1, 'succeeded')] });
    expect(index.eventsOf('acct_a').map((e) => e.id)).toEqual(['evt_3', 'evt_2']);
    expect(index.getEvent('evt_1')).toBeDefined();
    expect(index.pendingDeliveries().map((d) => d.id)).toEqual(['wd_1']);
    write(index, { deliveries: [attempt(1, 1, 'succeeded')] });
    expect(index.getEvent('evt_1')).toBeUndefined();
    expect(keys(index.deliveriesOf('acct_a'))).toEqual(['wd_3#1:succeeded', 'wd_2#1:succeeded']);
  });

  it('under a receiver that always fails, what is kept stops growing', () => {
    const index = new EventIndex(10, 40);
    const sizes: number[] = [];
    for (let n = 1; n <= 200; n++) {
      write(index, { events: [event(n)], deliveries: [attempt(n, 1, 'pending')] });
      // Every delivery of an event ten back has used up its eight attempts.
      if (n > 10) {
        const old = n - 10;
        for (let a = 1; a <= 7; a++) write(index, { deliveries: [attempt(old, a, 'failed'), attempt(old, a + 1, 'pending')] });
        write(index, { deliveries: [attempt(old, 8, 'failed')] });
      }
      sizes.push(index.allDeliveries().length + index.allEvents().length);
    }
    expect(index.eventsOf('acct_a')).toHaveLength(10);
    expect(index.pendingDeliveries()).toHaveLength(10);
    expect(Math.max(...sizes.slice(50))).toBe(Math.min(...sizes.slice(50)));
    expect(index.allDeliveries().length).toBeLessThanOrEqual(40 + 10);
  });
});

describe('EventIndex onPruned', () => {
  it('names what the bounds let go (an evicted event with its attempts, a finished attempt past its bound), not what a deletion removes', () => {
    const index = new EventIndex(2, 1);
    const pruned: string[] = [];
    index.onPruned = ({ kind, key }) => void pruned.push(`${kind}:${key}`);
    write(index, { events: [event(1), event(2)], deliveries: [attempt(1, 1, 'failed')] });
    expect(pruned).toEqual([]);
    write(index, { deliveries: [attempt(2, 1, 'failed')] });
    expect(pruned).toEqual(['delivery:wd_1#1']);
    write(index, { events: [event(3)] });
    expect(pruned).toEqual(['delivery:wd_1#1', 'event:evt_1']);
    // An event kept past the bound for its pending attempt goes, with it, once that attempt ends.
    write(index, { deliveries: [attempt(3, 1, 'pending')] });
    write(index, { events: [event(4), event(5)] });
    expect(pruned).toEqual(['delivery:wd_1#1', 'event:evt_1', 'event:evt_2', 'delivery:wd_2#1']);
    write(index, { deliveries: [attempt(3, 1, 'succeeded')] });
    expect(pruned.slice(4)).toEqual(['event:evt_3', 'delivery:wd_3#1']);
    // An attempt of an event no longer kept is not kept either.
    write(index, { deliveries: [attempt(1, 2, 'failed')] });
    expect(pruned.slice(6)).toEqual(['delivery:wd_1#2']);
    index.deleteAccount('acct_a', true);
    expect(pruned.length).toBe(7);
  });
});
