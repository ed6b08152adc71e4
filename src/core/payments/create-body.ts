/**
 * Validation of the create body: the schema of src/schemas under this sandbox's limits, plus what
 * a schema cannot state: metadata limits (nesting depth, serialized size), and descriptions that
 * are well-formed Unicode (a lone surrogate cannot go into the invoice's UTF-8 `d` field, so the
 * invoice would not carry the description it is said to).
 */
import { createPaymentRequestBodySchema, type CreatePaymentRequestBody } from '../../schemas/create-payment-request.js';
import type { ErrorDetail } from '../errors/errors.js';
import { jsonDepthExceeds } from '../pipeline/json-body.js';
import { declareBody, type BodyDeclaration } from '../pipeline/route.js';
import type { SandboxSettings } from '../settings.js';

/** The create body of a sandbox with these settings, as its route declares it. */
export function createBody(settings: SandboxSettings): BodyDeclaration<CreatePaymentRequestBody> {
  return declareBody<CreatePaymentRequestBody>({
    schema: createPaymentRequestBodySchema(settings),
    what: 'payment request',
    notes: {
      amount: { unit: 'sats', belowMinimumCode: 'amount_below_minimum' },
      expiresIn: { unit: 'seconds' },
      destinationWallet: { expected: 'a Lightning address, <name>@<domain>' },
    },
    check: (body) => [
      ...(isObject(body) && isObject(body.metadata) ? metadataProblems(body.metadata, settings) : []),
      ...(isObject(body) && typeof body.description === 'string' && hasLoneSurrogate(body.description)
        ? [{ field: 'description', code: 'invalid_format' as const, message: 'description must be well-formed Unicode (it has a lone surrogate)' }]
        : []),
    ],
  });
}

/** Whether `text` holds a UTF-16 surrogate without its pair, which has no UTF-8 encoding. */
function hasLoneSurrogate(text: string): boolean {
  return /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);
}

function metadataProblems(metadata: Record<string, unknown>, settings: SandboxSettings): ErrorDetail[] {
  if (jsonDepthExceeds(metadata, settings.maxMetadataDepth)) {
    return [{ field: 'metadata', code: 'too_deep', message: `metadata must nest at most ${settings.maxMetadataDepth} levels` }];
  }
  const bytes = utf8Length(JSON.stringify(metadata));
  if (bytes > settings.maxMetadataBytes) {
    return [{ field: 'metadata', code: 'too_large', message: `metadata must be at most ${settings.maxMetadataBytes} bytes as JSON` }];
  }
  return [];
}

/** The UTF-8 length of `text`, counted without encoding it (lone surrogates count as U+FFFD, 3 bytes, as TextEncoder writes them). */
function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) continue;
    if (code < 0x800) bytes += 1;
    else if (code >= 0xd800 && code <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 2; // the pair's two code units make four bytes
      i++;
    } else bytes += 2;
  }
  return bytes;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
