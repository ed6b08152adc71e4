import { describe, expect, it } from 'vitest';
import { checkReceived, deliveriesToWaitFor, describeDeliveries } from './received-expectations.js';
import type { ReceivedDelivery } from './receiver-log.js';

function delivery(type: string, id: string, overrides: Partial<ReceivedDelivery> = {}): ReceivedDelivery {
  return { webhookId: id, timestamp: '1700000000', verified: true, answered: 204, event: { id, type, data: { id: 'pr_1', status: 'pending' } }, ...overrides };
}

const created = delivery('payment_request.created', 'evt_1');
const completed = delivery('payment_request.completed', 'evt_2');

describe('deliveriesToWaitFor', () => {
  it('is the most the expectations name, or one', () => {
    expect(deliveriesToWaitFor(undefined)).toBe(1);
    expect(deliveriesToWaitFor({ verified: true })).toBe(1);
    expect(deliveriesToWaitFor({ count: 0 })).toBe(0);
    expect(deliveriesToWaitFor({ count: 2, types: ['a', 'b', 'c'] })).toBe(3);
    expect(deliveriesToWaitFor({ events: [{}, {}] })).toBe(2);
  });
});

describe('checkReceived', () => {
  it('counts exactly; with nothing to count, wants at least one delivery', () => {
    expect(checkReceived({ count: 2 }, [created, completed])).toEqual([]);
    expect(checkReceived({ count: 1 }, [created, completed])).toEqual([{ path: 'count', expected: '1', actual: '2' }]);
    expect(checkReceived({ count: 0 }, [])).toEqual([]);
    expect(checkReceived(undefined, [created])).toEqual([]);
    expect(checkReceived({ verified: true }, [])).toEqual([{ path: 'count', expected: 'at least 1', actual: '0' }]);
  });

  it('compares the types in arrival order, showing both lists', () => {
    expect(checkReceived({ types: ['payment_request.created', 'payment_request.completed'] }, [created, completed])).toEqual([]);
    expect(checkReceived({ types: ['payment_request.completed', 'payment_request.created'] }, [created, completed])).toEqual([
      {
        path: 'types',
        expected: '["payment_request.completed","payment_request.created"]',
        actual: '["payment_request.created","payment_request.completed"]',
      },
    ]);
    expect(checkReceived({ types: ['payment_request.created'] }, [created, completed])).toHaveLength(1);
  });

  it('matches the event bodies like body: partially, element by element, same length', () => {
    expect(checkReceived({ events: [{ type: 'payment_request.created', data: { status: 'pending' } }, {}] }, [created, completed])).toEqual([]);
    expect(checkReceived({ events: [{}, { data: { status: 'completed' } }] }, [created, completed])).toEqual([
      { path: 'events[1].data.status', expected: '"completed"', actual: '"pending"' },
    ]);
    expect(checkReceived({ events: [{}] }, [created, completed])).toEqual([{ path: 'events.length', expected: '1', actual: '2' }]);
  });

  it('verified: every delivery', () => {
    expect(checkReceived({ verified: true }, [created, completed])).toEqual([]);
    expect(checkReceived({ verified: true }, [created, { ...completed, verified: false }])).toEqual([
      { path: 'deliveries[1].verified', expected: 'true', actual: "false (the signature does not verify with the endpoint's secret)" },
    ]);
  });

  it("sameWebhookId: each delivery's webhook-id is its event's id", () => {
    expect(checkReceived({ sameWebhookId: true }, [created, created, completed])).toEqual([]);
    expect(checkReceived({ sameWebhookId: true }, [created, { ...created, webhookId: 'msg_other' }, { ...completed, webhookId: null }])).toEqual([
      { path: 'deliveries[1].webhook-id', expected: 'the event id "evt_1"', actual: '"msg_other"' },
      { path: 'deliveries[2].webhook-id', expected: 'the event id "evt_2"', actual: '(absent)' },
    ]);
  });
});

describe('describeDeliveries', () => {
  it('lists each delivery on a line', () => {
    expect(describeDeliveries([])).toEqual(['received: nothing']);
    expect(describeDeliveries([created, { ...completed, verified: false, answered: 500 }])).toEqual([
      'received: 2 deliveries',
      '  1. payment_request.created evt_1 webhook-id evt_1, verified, answered 204',
      '  2. payment_request.completed evt_2 webhook-id evt_2, NOT verified, answered 500',
    ]);
  });
});
