/**
 * The checker of `test/support/openapi-responses.ts` can fail: wrong answers, made up here from a
 * right one, are each caught with a message that says what is wrong. (The traffic test relies on
 * it passing real answers; this proves a pass means something.)
 */
import { describe, expect, it } from 'vitest';
import { openApiDocumentOf } from '../src/openapi/index.js';
import { eventExamples, pendingExample } from '../src/openapi/examples.js';
import { OpenApiResponses, validateResponse } from './support/openapi-responses.js';

const document = openApiDocumentOf();
const responses = new OpenApiResponses(document);
const JSON_TYPE = { 'content-type': 'application/json; charset=utf-8' };
const created = { ...JSON_TYPE, location: `/api/v1/payment-requests/${pendingExample.id}` };
const errorOf = (code: string, message = 'x') => JSON.stringify({ error: { code, message } });

describe('a right answer passes', () => {
  it('a created payment request', () => {
    expect(validateResponse(document, 'POST', '/api/v1/payment-requests', 201, created, JSON.stringify(pendingExample))).toEqual([]);
  });

  it('a 404 of the right code, a 204 without a body, a HEAD without one, a 405 with the right Allow', () => {
    expect(responses.check({ method: 'GET', url: '/api/v1/payment-requests/pr_x?y=1', status: 404, headers: JSON_TYPE, body: errorOf('payment_request_not_found') }).errors).toEqual([]);
    expect(responses.check({ method: 'POST', url: 'http://h.test/sandbox/v1/reset', status: 204, headers: {}, body: '' }).errors).toEqual([]);
    expect(responses.check({ method: 'HEAD', url: '/healthz', status: 200, headers: JSON_TYPE, body: '' }).errors).toEqual([]);
    const allowed = { ...JSON_TYPE, allow: 'GET, DELETE' };
    expect(responses.check({ method: 'PUT', url: '/sandbox/v1/webhook-endpoints/we_x', status: 405, headers: allowed, body: errorOf('method_not_allowed') }).errors).toEqual([]);
    expect(responses.check({ method: 'GET', url: '/nothing/here', status: 404, headers: JSON_TYPE, body: errorOf('route_not_found') })).toEqual({ key: 'GET (no route) 404', errors: [] });
  });
});

describe('a wrong answer is caught', () => {
  const create = (body: unknown, status = 201, headers: Record<string, string> = created) =>
    validateResponse(document, 'POST', '/api/v1/payment-requests', status, headers, typeof body === 'string' ? body : JSON.stringify(body));

  it('amount as a string', () => {
    expect(create({ ...pendingExample, amount: '1000' })).toEqual([expect.stringMatching(/^\/amount must be integer/)]);
  });

  it('status missing, or not one of the four', () => {
    const { status: _status, ...withoutStatus } = pendingExample;
    expect(create(withoutStatus)).toEqual([expect.stringMatching(/must have required property 'status'/)]);
    expect(create({ ...pendingExample, status: 'paid' })).toEqual([expect.stringMatching(/^\/status must be equal to one of the allowed values/)]);
  });

  it('an id without pr_, a timestamp without milliseconds, a fee below zero', () => {
    expect(create({ ...pendingExample, id: '4eFthBRT3ez7' })).toEqual([expect.stringMatching(/^\/id must match pattern/)]);
    expect(create({ ...pendingExample, expiresAt: '2026-03-14T16:09:26Z' })).toEqual([expect.stringMatching(/^\/expiresAt must match pattern/)]);
    expect(create({ ...pendingExample, feeAmount: -1 })).toEqual([expect.stringMatching(/^\/feeAmount must be >= 0/)]);
  });

  it('an undocumented status', () => {
    expect(create(pendingExample, 200)).toEqual(['status 200 is not documented for POST /api/v1/payment-requests']);
    expect(create(errorOf('invalid_transition'), 409, JSON_TYPE)).toEqual(['status 409 is not documented for POST /api/v1/payment-requests']);
  });

  it('a missing Location, the wrong content type, no body at all, a body that is not JSON', () => {
    expect(create(pendingExample, 201, JSON_TYPE)).toEqual(['header Location is missing']);
    expect(create(pendingExample, 201, { ...created, 'content-type': 'text/html' })).toEqual(['content-type text/html is not among application/json']);
    expect(create('', 201)).toEqual(['the answer has no body; the document has one']);
    expect(create('<html>', 201)).toEqual(['the body is not JSON: <html>']);
  });

  it('an error body of the wrong shape, or with a code the response does not list', () => {
    expect(create({ error: 'amount is too small' }, 400, JSON_TYPE)).toEqual([expect.stringMatching(/^\/error must be object/)]);
    expect(create(errorOf('i_am_a_teapot'), 400, JSON_TYPE)).toEqual([expect.stringMatching(/^\/error\/code must be equal to one of the allowed values/)]);
    expect(create(errorOf('invalid_transition'), 400, JSON_TYPE)).toEqual(["error code invalid_transition is not among this response's invalid_json, invalid_request"]);
    expect(create(errorOf('unauthorized'), 401, JSON_TYPE)).toEqual(['header WWW-Authenticate is missing']);
  });

  it('a body on a 204, or on a HEAD answer; a 405 whose Allow differs from the document', () => {
    expect(responses.check({ method: 'POST', url: '/sandbox/v1/reset', status: 204, headers: JSON_TYPE, body: '{}' }).errors).toEqual([
      'the document has no body for this response, the answer has 2 bytes',
    ]);
    expect(responses.check({ method: 'HEAD', url: '/healthz', status: 200, headers: JSON_TYPE, body: '{"status":"ok"}' }).errors).toEqual(['a HEAD answer has a body']);
    const wrongAllow = { ...JSON_TYPE, allow: 'GET' };
    expect(responses.check({ method: 'PUT', url: '/sandbox/v1/webhook-endpoints/we_x', status: 405, headers: wrongAllow, body: errorOf('method_not_allowed') }).errors).toEqual([
      'Allow is "GET", the document has DELETE, GET',
    ]);
  });

  it('a route the document lacks answering 200', () => {
    expect(responses.check({ method: 'GET', url: '/api/v1/payments', status: 200, headers: JSON_TYPE, body: '{}' })).toEqual({
      key: 'GET (no route) 200',
      errors: ['status 200 is not documented for GET (no route)'],
    });
  });

  it('a webhook delivery: the wrong type for its event, a signature not in the v1 format, a missing webhook-id', () => {
    const headers = { 'content-type': 'application/json', 'webhook-id': 'evt_x', 'webhook-timestamp': '1773500966', 'webhook-signature': 'v1,c2lnbmF0dXJl' };
    const completed = JSON.stringify(eventExamples['payment_request.completed']);
    expect(responses.checkWebhook('payment_request.completed', headers, completed)).toEqual([]);
    expect(responses.checkWebhook('payment_request.created', headers, completed)).toEqual([expect.stringMatching(/^\/type must be equal to constant/)]);
    expect(responses.checkWebhook('payment_request.completed', { ...headers, 'webhook-signature': 'sha256=abc' }, completed)).toEqual([
      expect.stringMatching(/^header webhook-signature: \(body\) must match pattern/),
    ]);
    const { 'webhook-id': _id, ...withoutId } = headers;
    expect(responses.checkWebhook('payment_request.completed', withoutId, completed)).toEqual(['header webhook-id is missing']);
  });
});
