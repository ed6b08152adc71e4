import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { describe, expect, it } from 'vitest';
import { checkExpectations, checkNoAnswer, type StepResponse } from './expectations.js';

const preimage = '11'.repeat(32);
const paymentHash = bytesToHex(sha256(hexToBytes(preimage)));

function response(status: number, body: unknown): StepResponse {
  return { status, body, text: JSON.stringify(body) };
}

const created = response(201, {
  id: 'pr_1',
  status: 'pending',
  amount: 1000,
  feeAmount: 5,
  metadata: { orderId: 'A-1', tags: ['a', 'b'] },
  paymentHash,
});

describe('checkExpectations', () => {
  it('wants a 2xx status when nothing is expected', () => {
    expect(checkExpectations(undefined, response(204, null))).toEqual([]);
    expect(checkExpectations(undefined, response(404, {}))).toEqual([{ path: 'status', expected: '2xx', actual: '404' }]);
    expect(checkExpectations({ body: {} }, response(409, {}))).toEqual([{ path: 'status', expected: '2xx', actual: '409' }]);
  });

  it('compares an exact status', () => {
    expect(checkExpectations({ status: 201 }, created)).toEqual([]);
    expect(checkExpectations({ status: 200 }, created)).toEqual([{ path: 'status', expected: '200', actual: '201' }]);
  });

  it('matches a body partially and recursively', () => {
    expect(checkExpectations({ body: { status: 'pending', metadata: { orderId: 'A-1' } } }, created)).toEqual([]);
    expect(checkExpectations({ body: { status: 'completed', metadata: { orderId: 'B' }, nope: 1 } }, created)).toEqual([
      { path: 'body.status', expected: '"completed"', actual: '"pending"' },
      { path: 'body.metadata.orderId', expected: '"B"', actual: '"A-1"' },
      { path: 'body.nope', expected: '1', actual: '(absent)' },
    ]);
  });

  it('compares scalars strictly: 1000 is not "1000"', () => {
    expect(checkExpectations({ body: { amount: '1000' } }, created)).toEqual([{ path: 'body.amount', expected: '"1000"', actual: '1000' }]);
  });

  it('compares arrays element by element, with equal length', () => {
    expect(checkExpectations({ body: { metadata: { tags: ['a', 'b'] } } }, created)).toEqual([]);
    expect(checkExpectations({ body: { metadata: { tags: ['a'] } } }, created)).toEqual([
      { path: 'body.metadata.tags.length', expected: '1', actual: '2' },
    ]);
    expect(checkExpectations({ body: { metadata: { tags: ['a', 'c'] } } }, created)).toEqual([
      { path: 'body.metadata.tags[1]', expected: '"c"', actual: '"b"' },
    ]);
    const errors = response(400, { error: { details: [{ field: 'amount', code: 'x', message: 'm' }] } });
    expect(checkExpectations({ status: 400, body: { error: { details: [{ field: 'amount' }] } } }, errors)).toEqual([]);
  });

  it('with exactBody, extra fields are mismatches at every level', () => {
    const status = response(200, { status: 'completed' });
    expect(checkExpectations({ body: { status: 'completed' }, exactBody: true }, status)).toEqual([]);
    expect(checkExpectations({ body: { status: 'completed' }, exactBody: true }, response(200, { status: 'completed', extra: 1 }))).toEqual([
      { path: 'body.extra', expected: '(absent)', actual: '1' },
    ]);
    expect(checkExpectations({ body: { a: { b: 1 } }, exactBody: true }, response(200, { a: { b: 1, c: 2 } }))).toEqual([
      { path: 'body.a.c', expected: '(absent)', actual: '2' },
    ]);
  });

  it('checks that top-level fields are absent', () => {
    expect(checkExpectations({ absent: ['preimage', 'destinationWallet'] }, created)).toEqual([]);
    expect(checkExpectations({ absent: ['feeAmount'] }, created)).toEqual([{ path: 'body.feeAmount', expected: '(absent)', actual: '5' }]);
  });

  it('checks an error code, and an expected error makes a 4xx the point', () => {
    const conflict = response(409, { error: { code: 'invalid_transition', message: 'no' } });
    expect(checkExpectations({ error: 'invalid_transition' }, conflict)).toEqual([]);
    expect(checkExpectations({ status: 409, error: 'invalid_transition' }, conflict)).toEqual([]);
    expect(checkExpectations({ error: 'payment_request_not_found' }, conflict)).toEqual([
      { path: 'body.error.code', expected: '"payment_request_not_found"', actual: '"invalid_transition"' },
    ]);
    expect(checkExpectations({ error: 'invalid_transition' }, created)).toEqual([
      { path: 'body.error.code', expected: '"invalid_transition"', actual: '(absent)' },
    ]);
  });

  it('checks sha256(preimage) against the body\'s payment hash', () => {
    const paid = response(200, { preimage, paymentHash });
    expect(checkExpectations({ preimageMatchesPaymentHash: true }, paid)).toEqual([]);
    const wrong = response(200, { preimage: '22'.repeat(32), paymentHash });
    expect(checkExpectations({ preimageMatchesPaymentHash: true }, wrong)).toEqual([
      { path: 'sha256(body.preimage)', expected: JSON.stringify(paymentHash), actual: JSON.stringify(bytesToHex(sha256(hexToBytes('22'.repeat(32))))) },
    ]);
    expect(checkExpectations({ preimageMatchesPaymentHash: true }, created)).toEqual([
      { path: 'body.preimage', expected: 'a 32-byte hex preimage', actual: '(absent)' },
    ]);
  });

  it('checks sha256(preimage) against a given hash, in either case', () => {
    const paid = response(200, { status: 'completed', preimage });
    expect(checkExpectations({ preimageMatches: paymentHash.toUpperCase() }, paid)).toEqual([]);
    expect(checkExpectations({ preimageMatches: '00'.repeat(32) }, paid)).toHaveLength(1);
    expect(checkExpectations({ preimageMatches: 'not a hash' }, paid)).toEqual([
      { path: 'the given hash', expected: 'a 32-byte hex hash', actual: '"not a hash"' },
    ]);
  });

  it('counts the items of a list answer: body.data, or the body when it is an array', () => {
    const list = response(200, { data: [{ type: 'a' }, { type: 'b' }] });
    expect(checkExpectations({ count: 2 }, list)).toEqual([]);
    expect(checkExpectations({ count: 1 }, list)).toEqual([{ path: 'body.data.length', expected: '1', actual: '2' }]);
    expect(checkExpectations({ count: 0 }, response(200, []))).toEqual([]);
    expect(checkExpectations({ count: 3 }, response(200, [1]))).toEqual([{ path: 'body.length', expected: '3', actual: '1' }]);
    expect(checkExpectations({ count: 1 }, created)).toEqual([{ path: 'body.data', expected: 'a list of 1', actual: '(absent)' }]);
  });

  it('reports a body that is not JSON as a mismatch, not a crash', () => {
    expect(checkExpectations({ body: { status: 'ok' } }, { status: 200, body: '<html>', text: '<html>' })).toEqual([
      { path: 'body', expected: 'an object', actual: '"<html>"' },
    ]);
  });

  it('checks headers by name in any case, as text', () => {
    const busy: StepResponse = { ...response(503, { error: { code: 'simulated_fault' } }), headers: { 'retry-after': '2' } };
    expect(checkExpectations({ status: 503, headers: { 'Retry-After': 2 } }, busy)).toEqual([]);
    expect(checkExpectations({ status: 503, headers: { 'retry-after': '3', 'x-other': 'a' } }, busy)).toEqual([
      { path: 'headers.retry-after', expected: '"3"', actual: '"2"' },
      { path: 'headers.x-other', expected: '"a"', actual: '(absent)' },
    ]);
  });

  it('checks how long the answer took', () => {
    expect(checkExpectations({ tookAtLeastMs: 300 }, { ...created, durationMs: 301 })).toEqual([]);
    expect(checkExpectations({ tookAtLeastMs: 300 }, { ...created, durationMs: 12.4 })).toEqual([{ path: 'time', expected: 'at least 300 ms', actual: '12 ms' }]);
    expect(checkExpectations({ tookAtLeastMs: 300 }, created)).toEqual([{ path: 'time', expected: 'at least 300 ms', actual: '(not measured)' }]);
  });

  it('with dropped, an answer is the mismatch, whatever its status', () => {
    expect(checkExpectations({ dropped: true }, created)).toEqual([{ path: 'answer', expected: '(none: the connection closed)', actual: 'HTTP 201' }]);
    expect(checkExpectations({ dropped: true }, response(500, null))).toEqual([{ path: 'answer', expected: '(none: the connection closed)', actual: 'HTTP 500' }]);
  });
});

describe('checkNoAnswer', () => {
  const noAnswer = { reason: 'cannot reach http://x/api: other side closed', durationMs: 305 };

  it('holds when dropped was expected, and checks the time', () => {
    expect(checkNoAnswer({ dropped: true }, noAnswer)).toEqual([]);
    expect(checkNoAnswer({ dropped: true, tookAtLeastMs: 300 }, noAnswer)).toEqual([]);
    expect(checkNoAnswer({ dropped: true, tookAtLeastMs: 400 }, noAnswer)).toEqual([{ path: 'time', expected: 'at least 400 ms', actual: '305 ms' }]);
  });

  it('is a mismatch when an answer was expected', () => {
    expect(checkNoAnswer(undefined, noAnswer)).toEqual([{ path: 'answer', expected: 'an answer', actual: '(none: cannot reach http://x/api: other side closed)' }]);
  });
});
