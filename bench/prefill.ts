/**
 * Writes a data file already holding many payment requests, in the format `lnpr serve --data`
 * reads, so the bench can measure startup and the JSON-file store at that size without first
 * creating them through the API (100,000 POSTs would take longer than the whole bench).
 */
import { createHash, randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import accounts from '../fixtures/accounts.json' with { type: 'json' };
import { feeFor } from '../src/core/payments/fees.js';
import { newPaymentRequestId } from '../src/core/ids.js';
import type { PaymentRequestRecord } from '../src/core/store/payment-request.js';
import { cryptoRandom } from '../src/core/random.js';
import { createInvoice } from '../src/lightning/invoice.js';
import { wasmSigner } from '../src/lightning/signer.node.js';
import { SNAPSHOT_FORMAT, SNAPSHOT_VERSION, type Snapshot } from '../src/store/snapshot-format.js';

const AMOUNT = 1000;
const DESCRIPTION = 'Coffee beans';
/** A year: the records stay pending however long the bench runs, as fresh requests would be. */
const EXPIRES_IN = 31_536_000;

/**
 * Writes `count` pending records of the default custodial account to `path` and returns their
 * ids. Ids and payment hashes are unique, as the store's indexes require; every record carries
 * the same real signed invoice, since signing each one would dominate the bench's run time.
 */
export async function writePrefilledDataFile(path: string, count: number): Promise<string[]> {
  const createdAtMs = Math.floor(Date.now() / 1000) * 1000;
  const createdAt = new Date(createdAtMs).toISOString();
  const expiresAt = new Date(createdAtMs + EXPIRES_IN * 1000).toISOString();
  const invoice = createInvoice(
    {
      network: 'regtest',
      amountSats: AMOUNT,
      timestampSeconds: createdAtMs / 1000,
      paymentHash: randomBytes(32),
      paymentSecret: randomBytes(32),
      description: DESCRIPTION,
      expirySeconds: EXPIRES_IN,
    },
    Buffer.from(accounts.serviceNodeKey, 'hex'),
    wasmSigner,
  );
  const fee = feeFor(AMOUNT);
  const paymentRequests: PaymentRequestRecord[] = [];
  for (let i = 0; i < count; i++) {
    const preimage = randomBytes(32);
    paymentRequests.push({
      id: newPaymentRequestId(cryptoRandom),
      accountId: 'acct_custodial',
      status: 'pending',
      amount: AMOUNT,
      description: DESCRIPTION,
      destinationWallet: 'merchant@example.com',
      metadata: { orderId: `bench-${i}` },
      expiresIn: EXPIRES_IN,
      invoice,
      paymentHash: createHash('sha256').update(preimage).digest('hex'),
      preimage: preimage.toString('hex'),
      isNwc: false,
      ...fee,
      createdAt,
      expiresAt,
      updatedAt: createdAt,
    });
  }
  const ids = paymentRequests.map((record) => record.id);
  // 143 random bits make a collision all but impossible; a duplicate would silently shrink the store.
  if (new Set(ids).size !== count) throw new Error('prefill: duplicate payment request ids drawn');
  const snapshot: Snapshot = { format: SNAPSHOT_FORMAT, version: SNAPSHOT_VERSION, sequence: 0, paymentRequests, clocks: {} };
  await writeFile(path, JSON.stringify(snapshot));
  return ids;
}
