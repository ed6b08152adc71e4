/** What falls due, and when: a request's next change, a delivery attempt, a first attempt's moment; and DueSchedule handing them to the scheduler. */
import { describe, expect, it } from 'vitest';
import type { PaymentRequestRecord } from '../store/payment-request.js';
import type { DeliveryRecord } from '../store/webhook-records.js';
import { attemptDue, DueSchedule, firstAttemptDueMs, nextChangeDue } from './due-schedule.js';
import type { DueEntry, Scheduler } from './scheduler.js';

const T0 = Date.parse('2025-01-01T00:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

function request(overrides: Partial<PaymentRequestRecord> = {}): PaymentRequestRecord {
  return {
    id: 'pr_1',
    accountId: 'acct_a',
    status: 'pending',
    amount: 1_000,
    description: '',
    destinationWallet: 'w',
    expiresIn: 3_600,
    invoice: 'lnbc1',
    paymentHash: '0'.repeat(64),
    preimage: '1'.repeat(64),
    isNwc: false,
    feeAmount: 10,
    feePercentage: 1,
    createdAt: iso(T0),
    expiresAt: iso(T0 + 3_600_000),
    updatedAt: iso(T0),
    ...overrides,
  };
}

function delivery(overrides: Partial<DeliveryRecord> = {}): DeliveryRecord {
  return {
    id: 'wd_1',
    accountId: 'acct_a',
    event: 'evt_1',
    endpoint: 'we_1',
    attempt: 3,
    status: 'pending',
    responseStatus: null,
    error: null,
    scheduledAt: iso(T0 + 35_000),
    attemptedAt: null,
    durationMs: null,
    ...overrides,
  };
}

/** A scheduler that only records what it is given. */
function recordingScheduler() {
  const added: DueEntry[] = [];
  const batches: DueEntry[][] = [];
  const scheduler: Pick<Scheduler, 'add' | 'addMany'> = {
    add: (accountId, dueMs, item) => void added.push({ accountId, dueMs, item }),
    addMany: (entries) => void batches.push([...entries]),
  };
  return { scheduler, added, batches };
}

describe('due moments', () => {
  it("a pending request is due at its expiry, or at a rule's outcome if that comes first", () => {
    expect(nextChangeDue(request())).toEqual({ accountId: 'acct_a', dueMs: T0 + 3_600_000, item: { kind: 'paymentRequest', id: 'pr_1' } });
    const ruled = request({ scheduledOutcome: { transition: 'complete', at: iso(T0 + 5_000), rule: 'pay-fast' } });
    expect(nextChangeDue(ruled)?.dueMs).toBe(T0 + 5_000);
  });

  it('a final request is due at nothing', () => {
    for (const status of ['completed', 'expired', 'failed'] as const) expect(nextChangeDue(request({ status }))).toBeUndefined();
  });

  it('a pending attempt is due at its scheduledAt; one made, or held for reorder, at nothing', () => {
    expect(attemptDue(delivery())).toEqual({ accountId: 'acct_a', dueMs: T0 + 35_000, item: { kind: 'delivery', id: 'wd_1', attempt: 3 } });
    expect(attemptDue(delivery({ status: 'failed' }))).toBeUndefined();
    expect(attemptDue(delivery({ status: 'succeeded' }))).toBeUndefined();
    expect(attemptDue(delivery({ scheduledAt: null, heldFor: 'pr_1' }))).toBeUndefined();
  });

  it("a first attempt is due at its event's moment, later by the delay fault, and never after now", () => {
    expect(firstAttemptDueMs(iso(T0), T0 + 10_000)).toBe(T0);
    expect(firstAttemptDueMs(iso(T0), T0 + 10_000, 30)).toBe(T0 + 30_000);
    // A frozen clock shows T0 while a transition's updatedAt reads T0 + 1 ms.
    expect(firstAttemptDueMs(iso(T0 + 1), T0)).toBe(T0);
    expect(firstAttemptDueMs(iso(T0 + 1), T0, 2)).toBe(T0 + 2_000);
  });
});

describe('DueSchedule', () => {
  it('schedules what is due, one by one or many at once, and skips what is not', () => {
    const { scheduler, added, batches } = recordingScheduler();
    const due = new DueSchedule(scheduler);
    due.scheduleNextChange(request());
    due.scheduleNextChange(request({ id: 'pr_done', status: 'completed' }));
    due.scheduleDeliveries([delivery(), delivery({ id: 'wd_held', scheduledAt: null, heldFor: 'pr_1' }), delivery({ id: 'wd_2', attempt: 1, scheduledAt: iso(T0) })]);
    expect(added).toEqual([
      { accountId: 'acct_a', dueMs: T0 + 3_600_000, item: { kind: 'paymentRequest', id: 'pr_1' } },
      { accountId: 'acct_a', dueMs: T0 + 35_000, item: { kind: 'delivery', id: 'wd_1', attempt: 3 } },
      { accountId: 'acct_a', dueMs: T0, item: { kind: 'delivery', id: 'wd_2', attempt: 1 } },
    ]);
    due.scheduleNextChanges([request({ id: 'pr_2', accountId: 'acct_b' }), request({ id: 'pr_3', status: 'expired' })]);
    expect(batches).toEqual([[{ accountId: 'acct_b', dueMs: T0 + 3_600_000, item: { kind: 'paymentRequest', id: 'pr_2' } }]]);
  });
});
