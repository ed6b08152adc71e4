/** The data file's format: chunked serialization must write exactly what JSON.stringify would. */
import { describe, expect, it } from 'vitest';
import { emptySnapshot, parseSnapshot, snapshotChunks, type Snapshot } from './snapshot-format.js';
import { testPaymentRequest } from './testing/payment-request.js';

function chunksOf(snapshot: Snapshot): string[] {
  return [...snapshotChunks(snapshot)];
}

describe('snapshotChunks', () => {
  it('of an empty snapshot', () => {
    expect(chunksOf(emptySnapshot()).join('')).toBe(JSON.stringify(emptySnapshot()));
  });

  it('of one record', () => {
    const snapshot = { ...emptySnapshot(), sequence: 1, paymentRequests: [testPaymentRequest()] };
    expect(chunksOf(snapshot).join('')).toBe(JSON.stringify(snapshot));
  });

  it('of records of very different sizes, across many chunks', () => {
    const sizes = [0, 10, 2_000_000, 5, 300_000, 1, 1, 700_000];
    const paymentRequests = Array.from({ length: 20_000 }, (_, index) =>
      testPaymentRequest({ description: 'd'.repeat(sizes[index % sizes.length]! % (index + 7)) }),
    );
    paymentRequests[17] = testPaymentRequest({ description: 'x'.repeat(3_000_000) });
    const snapshot: Snapshot = {
      ...emptySnapshot(),
      sequence: 20_000,
      paymentRequests,
      clocks: { a: { offsetMs: 1, frozenAtMs: null }, b: { offsetMs: -2, frozenAtMs: 3 } },
    };
    const chunks = chunksOf(snapshot);
    expect(chunks.length).toBeGreaterThan(5);
    expect(chunks.join('')).toBe(JSON.stringify(snapshot));
  });

  it('chunks every array, so a new kind of record needs no change here; skips undefined as JSON.stringify does', () => {
    const events = Array.from({ length: 3_000 }, (_, index) => ({ id: `evt_${index}`, data: 'e'.repeat(200 + (index % 300)) }));
    const snapshot = { ...emptySnapshot(), paymentRequests: [testPaymentRequest()], events, note: undefined } as unknown as Snapshot;
    const chunks = chunksOf(snapshot);
    expect(chunks.join('')).toBe(JSON.stringify(snapshot));
    expect(Math.max(...chunks.map((chunk) => chunk.length))).toBeLessThan(2 ** 17);
  });

  it('keeps __proto__ keys as data, and reads back equal', () => {
    const metadata = JSON.parse('{"__proto__": {"polluted": true}, "ok": "ü → ⚡"}');
    const snapshot: Snapshot = {
      ...emptySnapshot(),
      paymentRequests: [testPaymentRequest({ metadata }), testPaymentRequest()],
      clocks: JSON.parse('{"__proto__": {"offsetMs": 0, "frozenAtMs": null}}'),
    };
    const text = chunksOf(snapshot).join('');
    expect(text).toBe(JSON.stringify(snapshot));
    expect(JSON.stringify(parseSnapshot(text, 'file'))).toBe(text);
  });
});
