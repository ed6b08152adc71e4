/** The bound on pending deliveries: counted from writes, admitted within it, never dropped. */
import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../store/memory-store.js';
import { PendingDeliveries } from './pending-deliveries.js';
import type { DeliveryRecord, EventRecord } from '../store/webhook-records.js';

const NOW = Date.parse('2026-01-01T00:00:00.000Z');

const event = (n: number, accountId = 'acct_a'): EventRecord =>
  ({ id: `evt_${n}`, accountId, type: 'payment_request.created', timestamp: '2026-01-01T00:00:00.000Z', data: { id: `pr_${n}` } }) as unknown as EventRecord;

const pending = (n: number, accountId = 'acct_a', attempt = 1): DeliveryRecord => ({
  id: `wd_${n}`,
  accountId,
  event: `evt_${n}`,
  endpoint: 'we_1',
  attempt,
  status: 'pending',
  responseStatus: null,
  error: null,
  scheduledAt: '2026-01-01T00:00:00.000Z',
  attemptedAt: null,
  durationMs: null,
});

const failed = (delivery: DeliveryRecord): DeliveryRecord => ({ ...delivery, status: 'failed', responseStatus: 500, error: 'the receiver answered 500', attemptedAt: '2026-01-01T00:00:00.000Z', durationMs: 1 });

describe('PendingDeliveries', () => {
  it('admits new deliveries up to the bound; past it they are recorded failed, never attempted', async () => {
    const store = createMemoryStore();
    const counter = new PendingDeliveries(store, 2);
    const write = async (n: number) => {
      const [admitted] = counter.admit([pending(n)], NOW);
      const durable = store.commit({ events: [event(n)], deliveries: [admitted!] });
      counter.note([admitted!]);
      await durable;
      return admitted!;
    };
    expect((await write(1)).status).toBe('pending');
    expect((await write(2)).status).toBe('pending');
    const third = await write(3);
    expect(third).toMatchObject({ status: 'failed', attempt: 1, responseStatus: null, durationMs: 0, attemptedAt: '2026-01-01T00:00:00.000Z' });
    expect(third.error).toBe('not attempted: 2 deliveries of this account are pending already (the most the sandbox keeps); redeliver the event once they have gone');
    expect(counter.count('acct_a')).toBe(2);
    // Another account has its own bound.
    expect(counter.admit([pending(9, 'acct_b')], NOW)[0]!.status).toBe('pending');

    // A retry replaces the attempt it follows: the count stays, nothing is refused.
    const retry = pending(1, 'acct_a', 2);
    await store.commit({ deliveries: [failed(pending(1)), retry] });
    counter.note([failed(pending(1)), retry]);
    expect(counter.count('acct_a')).toBe(2);
    // One that ends makes room.
    await store.commit({ deliveries: [failed(pending(2))] });
    counter.note([failed(pending(2))]);
    expect(counter.count('acct_a')).toBe(1);
    expect((await write(4)).status).toBe('pending');
  });

  it('lets one already pending (a held delivery released) pass at the bound, and counts a batch together', async () => {
    const store = createMemoryStore();
    const counter = new PendingDeliveries(store, 2);
    await store.commit({ events: [event(1)], deliveries: [pending(1)] });
    counter.note([pending(1)]);
    const admitted = counter.admit([{ ...pending(1), scheduledAt: '2026-01-01T00:00:05.000Z' }, pending(2), pending(3)], NOW);
    expect(admitted.map((d) => d.status)).toEqual(['pending', 'pending', 'failed']);
  });

  it('starts from what the store holds (a data file), once, when first needed; forgets an erased account', async () => {
    const store = createMemoryStore();
    await store.commit({ events: [event(1), event(2)], deliveries: [pending(1), pending(2)] });
    const counter = new PendingDeliveries(store, 2);
    expect(counter.count('acct_a')).toBe(2);
    expect(counter.admit([pending(3)], NOW)[0]!.status).toBe('failed');
    counter.forget('acct_a');
    expect(counter.count('acct_a')).toBe(0);
  });

  it('does not count an attempt the store dropped (its event is no longer kept)', async () => {
    const store = createMemoryStore();
    const counter = new PendingDeliveries(store, 2);
    await store.commit({ deliveries: [pending(7)] });
    counter.note([pending(7)]);
    expect(counter.count('acct_a')).toBe(0);
  });
});
