/**
 * The example page's script: MSW's service worker serves the sandbox to this page, which then
 * uses the API with plain `fetch`, as an app would use the real service. The payment requests
 * live in `localStorage`, so a reload keeps them (and the page shows the last one again).
 * Bundled for browsers by `serve.ts` (esbuild) into `dist/app.js`.
 */
import { setupWorker } from 'msw/browser';
// An app imports 'lnpr-sandbox/msw'; the example uses the source so it needs no build first.
import { createHandlers } from '../../src/msw/index.js';
import { invoiceQrSvg } from './invoice-qr.js';

const KEY = 'sk_test_custodial';
/** Where the page remembers its last payment request (its own key, beside the sandbox's). */
const LAST_ID = 'lnpr-example:last-payment-request';

interface PaymentRequest {
  id: string;
  status: string;
  amount: number;
  feeAmount: number;
  invoice: string;
  paymentHash: string;
}

const $ = <T extends HTMLElement = HTMLElement>(selector: string): T => document.querySelector<T>(selector)!;

/** Calls the API with the test key; throws the API's error message on a non-2xx answer. */
async function callApi<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(path, {
    method,
    headers: { authorization: `Bearer ${KEY}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const json = await response.json();
  if (!response.ok) throw new Error(`${response.status} ${json.error?.code}: ${json.error?.message}`);
  return json as T;
}

function show(request: PaymentRequest): void {
  $('#request').hidden = false;
  $('#id').textContent = request.id;
  $('#amount').textContent = String(request.amount);
  $('#fee').textContent = String(request.feeAmount);
  $('#payment-hash').textContent = request.paymentHash;
  $('#invoice').textContent = request.invoice;
  $('#qr').innerHTML = invoiceQrSvg(request.invoice);
  showStatus(request.status);
}

function showStatus(status: string): void {
  $('#status').textContent = status;
  $<HTMLButtonElement>('#pay').disabled = status !== 'pending';
}

/** Runs a user action, showing its error instead of failing silently. */
function action(run: () => Promise<void>): () => void {
  return () => {
    $('#error').textContent = '';
    run().catch((error: unknown) => {
      $('#error').textContent = error instanceof Error ? error.message : String(error);
    });
  };
}

async function create(): Promise<void> {
  const request = await callApi<PaymentRequest>('POST', '/api/v1/payment-requests', {
    amount: Number($<HTMLInputElement>('#amount-input').value),
    description: $<HTMLInputElement>('#description-input').value,
    destinationWallet: 'shop@example.com',
  });
  localStorage.setItem(LAST_ID, request.id);
  show(request);
}

/** The sandbox plays the payer: the control API completes the request, then the page reads its status as an app would. */
async function pay(): Promise<void> {
  const id = $('#id').textContent!;
  await callApi('POST', `/sandbox/v1/payment-requests/${encodeURIComponent(id)}/complete`);
  const { status } = await callApi<{ status: string }>('GET', `/api/v1/payment-requests/${encodeURIComponent(id)}/status`);
  showStatus(status);
}

async function start(): Promise<void> {
  const worker = setupWorker(...createHandlers({ storage: 'localStorage' }));
  await worker.start({ serviceWorker: { url: './mockServiceWorker.js' }, onUnhandledRequest: 'bypass', quiet: true });
  const lastId = localStorage.getItem(LAST_ID);
  if (lastId !== null) {
    show(await callApi<PaymentRequest>('GET', `/api/v1/payment-requests/${encodeURIComponent(lastId)}`));
  }
  $('#create-form').addEventListener('submit', (event) => {
    event.preventDefault();
    action(create)();
  });
  $('#pay').addEventListener('click', action(pay));
  $<HTMLButtonElement>('#create').disabled = false;
  $('#worker').textContent = 'The sandbox is running in this page (MSW service worker).';
  document.documentElement.dataset.worker = 'ready';
}

action(start)();
