import { describe, expect, it } from 'vitest';
import { putRulesBodySchema } from '../../schemas/control.js';
import { createPaymentRequestBodySchema } from '../../schemas/create-payment-request.js';
import { createEndpointBodySchema } from '../../schemas/webhooks.js';
import { DEFAULT_SETTINGS } from '../settings.js';
import { DETAIL_CODES } from '../errors/detail-codes.js';
import { compileSchemaCheck } from './schema-check.js';

const checkEndpoint = compileSchemaCheck(createEndpointBodySchema, { place: 'body' });
const checkRules = compileSchemaCheck(putRulesBodySchema, { place: 'body' });
const checkCreate = compileSchemaCheck(createPaymentRequestBodySchema(DEFAULT_SETTINGS), {
  place: 'body',
  notes: { amount: { unit: 'sats', belowMinimumCode: 'amount_below_minimum' }, destinationWallet: { expected: 'a Lightning address, <name>@<domain>' } },
});

describe('the schema translator', () => {
  it('names nested fields by their path in dot form', () => {
    expect(checkEndpoint({ url: 'http://x.test/', faults: { duplicate: 2 }, events: [] })).toEqual([
      { field: 'events', code: 'too_few_items', message: 'events must have at least 1 item' },
      { field: 'faults.duplicate', code: 'above_maximum', message: 'faults.duplicate must be at most 1' },
    ]);
  });

  it('names an unknown field with the known ones, at any depth', () => {
    expect(checkEndpoint({ url: 'http://x.test/', secret: 'whsec_x', faults: { drop: true } })).toEqual([
      { field: 'secret', code: 'unknown_field', message: 'secret is not a field here (known: url, events, faults)' },
      { field: 'faults.drop', code: 'unknown_field', message: 'faults.drop is not a field of faults (known: duplicate, reorder, delaySeconds)' },
    ]);
  });

  it('lists the allowed values, and names list items by index', () => {
    const [detail] = checkEndpoint({ url: 'http://x.test/', events: ['payment_request.created', 'payment_request.paid'] });
    expect(detail).toEqual({
      field: 'events.1',
      code: 'invalid_value',
      message: 'events.1 must be one of payment_request.created, payment_request.completed, payment_request.failed, payment_request.expired',
    });
  });

  it('folds the branches of a oneOf into the forms allowed, or into the branch the type picks', () => {
    expect(checkRules({ rules: [{ outcome: 'fail', match: { amount: 'big' } }, { outcome: 'fail', match: { amount: { min: 0 } } }] })).toEqual([
      { field: 'rules.0.match.amount', code: 'invalid_type', message: 'rules.0.match.amount must be a whole number or a JSON object' },
      { field: 'rules.1.match.amount.min', code: 'below_minimum', message: 'rules.1.match.amount.min must be at least 1' },
    ]);
  });

  it("words a field's problems with the route's notes: units, formats, a code of its own", () => {
    expect(checkCreate({ amount: 5, description: 'x', destinationWallet: 'nobody' })).toEqual([
      { field: 'amount', code: 'amount_below_minimum', message: 'amount must be at least 21 sats' },
      { field: 'destinationWallet', code: 'invalid_format', message: 'destinationWallet must be a Lightning address, <name>@<domain>' },
    ]);
    expect(checkCreate({ amount: 1e16, description: 'x', destinationWallet: 'a@b.example' })[0]?.message).toMatch(/^amount must be at most [\d]+ sats$/);
  });

  it('reports every missing field, and a body that is no object as such', () => {
    expect(checkCreate({}).map((d) => [d.field, d.code])).toEqual([
      ['amount', 'missing_field'],
      ['description', 'missing_field'],
      ['destinationWallet', 'missing_field'],
    ]);
    expect(checkCreate([1])).toEqual([{ field: 'body', code: 'invalid_type', message: 'body must be a JSON object' }]);
  });

  it('calls query fields parameters', () => {
    const checkQuery = compileSchemaCheck({ type: 'object', additionalProperties: false, properties: { limit: { type: 'integer', minimum: 1 } } }, { place: 'query' });
    expect(checkQuery({ after: 'x', limit: 0 })).toEqual([
      { field: 'after', code: 'unknown_parameter', message: 'after is not a parameter here (known: limit)' },
      { field: 'limit', code: 'below_minimum', message: 'limit must be at least 1' },
    ]);
  });

  it('uses only catalogued detail codes, whatever the input', () => {
    const inputs: unknown[] = [null, 1, 'x', [], {}, { url: 1, events: 'x', faults: [] }, { rules: 'x' }, { rules: [null, 1, { outcome: 1, after: -1, probability: 2, name: 'x'.repeat(300) }] }];
    const codes = inputs.flatMap((input) => [...checkEndpoint(input), ...checkRules(input), ...checkCreate(input)].map((d) => d.code));
    expect(codes.length).toBeGreaterThan(15);
    expect(codes.filter((code) => !DETAIL_CODES.includes(code))).toEqual([]);
  });
});
