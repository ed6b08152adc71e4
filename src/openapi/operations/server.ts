/** Prose of `GET /openapi.json`, the route of `openapi/route.ts`. */
import type { ProseRecord } from './prose.js';

const ETAG_HEADER = { ETag: { $ref: '#/components/headers/ETag' } };

/** The prose of the document's own route. */
export const serverProse: ProseRecord = {
  getOpenApiDocument: {
    tag: 'Server',
    summary: 'This OpenAPI document',
    description:
      'The document describes what this server serves, with its settings (e.g. `--min-amount`); with `--no-controls` it leaves out the control API and the webhooks. `lnpr openapi` prints the same document.',
    headerParameters: [
      { name: 'If-None-Match', in: 'header', required: false, description: 'An `ETag` of an earlier answer: 304 if the document is unchanged.', schema: { type: 'string' } },
    ],
    answer: { description: 'The document.', headers: { ...ETAG_HEADER, 'Cache-Control': { $ref: '#/components/headers/Cache-Control' } } },
    moreResponses: { '304': { description: 'Not modified: the `If-None-Match` ETag is current.', headers: ETAG_HEADER } },
  },
};
