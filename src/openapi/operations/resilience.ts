/** Prose of the routes of `core/routes/resilience-routes.ts`: API faults and the request journal. */
import { KEPT_BODY_CHARS, KEPT_REQUESTS_PER_ACCOUNT } from '../../core/resilience/request-journal.js';
import { MAX_FAULTS } from '../../schemas/faults.js';
import { formatNumber } from '../facts.js';
import type { ProseRecord } from './prose.js';

const tag = 'Sandbox: resilience';
const faultsExample = {
  faults: [
    { match: { method: 'POST', path: '/api/v1/payment-requests' }, times: 1, fault: { resetAfterCommit: true } },
    { match: { path: '/api/v1/payment-requests/{id}/status' }, probability: 0.2, fault: { status: 503, retryAfter: 1 } },
  ],
  seed: 42,
};
const journalExample = {
  id: 'req_00000000a7',
  method: 'POST',
  path: '/api/v1/payment-requests',
  query: {},
  headers: { 'content-type': 'application/json', 'idempotency-key': 'order-A-1' },
  body: { amount: 1000, description: 'Order A-1', destinationWallet: 'shop@example.com', metadata: { orderId: 'A-1' } },
  status: null,
  responseBody: null,
  fault: { resetAfterCommit: true },
  receivedAt: '2026-11-25T10:00:00.125Z',
  durationMs: 2.4,
};

/** The prose of the resilience routes. */
export const resilienceProse: ProseRecord = {
  putFaults: {
    tag,
    summary: 'Make the API misbehave',
    description: `Replaces the account's API faults (at most ${MAX_FAULTS}; \`{"faults": []}\` clears them). Each applies to the account's own \`/api/v1\` calls that \`match\` (a method; a path, or a pattern such as \`/api/v1/payment-requests/{id}/status\`), never to the control API; the first that matches a call decides it. \`after\` skips its first n matches, \`times\` lets it fire at most n times (then it matches no more, so faults chain), \`probability\` is decided from \`seed\` (0 by default) and the count of the account's \`/api/v1\` calls since this PUT, so the same faults on a fresh account repeat the same sequence. A fault does one thing: \`{"status": 429|500|502|503|504, "retryAfter"?: seconds}\` (the usual error body, code \`simulated_fault\`, nothing processed); \`{"latencyMs": n}\` (the real answer, n ms late); \`{"reset": true}\` (the connection closes with no answer, nothing processed); \`{"resetAfterCommit": true}\` (processed and stored, events and webhooks included, then the connection closes with no answer: the ambiguous failure that makes duplicate orders); \`{"hangMs": n}\` (no answer for n ms, then closed; nothing processed). In MSW a closed connection is a network error and delays are delays. A reset with \`{"scope": "all"}\` clears them.`,
    bodyExamples: { lostCreate: faultsExample, clear: { faults: [] } },
    answer: { description: 'The faults now in force, each with how often it matched and fired.', examples: { armed: { faults: faultsExample.faults.map((fault) => ({ ...fault, matched: 0, fired: 0 })), seed: 42 } } },
  },
  getFaults: {
    tag,
    summary: "The account's API faults",
    description: 'With how often each matched a call (`matched`) and fired (`fired`).',
    answer: { description: 'The faults.', examples: { fired: { faults: faultsExample.faults.map((fault, index) => ({ ...fault, matched: 3 - index, fired: 1 - index })), seed: 42 } } },
  },
  listRequests: {
    tag,
    summary: "The account's /api/v1 calls",
    description: `The request journal: the account's own \`/api/v1\` calls, newest first, what was sent (method, path, query, headers without \`authorization\` or \`cookie\`, body) and answered (\`status\` and \`responseBody\`, null when a fault dropped the answer), the fault applied, when, and how long the engine took. The last ${formatNumber(KEPT_REQUESTS_PER_ACCOUNT)} per account, in memory (a restart empties it); bodies beyond ${KEPT_BODY_CHARS / 1024} KiB are cut. A reset empties it.`,
    queryParameters: {
      method: 'Only calls with this method.',
      path: 'Only calls to this path, or matching this pattern (`/api/v1/payment-requests/{id}`).',
      status: 'Only calls answered with this status.',
      since: 'Only calls received at or after this time (ISO 8601).',
      limit: 'At most this many, the newest; 100 by default.',
    },
    answer: { description: 'The calls.', examples: { lostCreate: { data: [journalExample] } } },
  },
  clearRequests: {
    tag,
    summary: "Empty the account's request journal",
    description: 'Forgets every journaled call of the account.',
    answer: { description: 'Emptied.' },
  },
};
