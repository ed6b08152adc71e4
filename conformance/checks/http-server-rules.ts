/**
 * Rules of a sandbox's HTTP server that a client sees (CONTRACT.md "OpenAPI", "Browsers and the
 * network", the pay page): `GET /openapi.json` serves the OpenAPI 3.1 document, CORS lets any
 * origin call `/api/v1` while `/sandbox/v1` answers no foreign one, and `/pay/{id}` shows a request
 * to anyone without its metadata. `full` holds a target that offers the
 * control API to them. A target that nothing answers over HTTP for them (MSW handlers inside a page,
 * which the contract exempts: they have no Host or CORS to guard) is skipped, saying so.
 */
import type { CheckContext } from '../check.js';
import { CheckSkipped } from '../check-errors.js';
import { TargetUnreachable, type ApiAnswer, type ApiCall } from '../client.js';
import { CONTROL } from './control-support.js';
import { safeBody, surfaceCheck } from './surface-support.js';
import { assert, COLLECTION, createPaymentRequest, isObject, show } from './support.js';

/** An origin no sandbox is told to trust: a shop's front end, as far as `/api/v1` is concerned. */
const FOREIGN_ORIGIN = 'https://shop.lnpr-conformance.example';
/** A front end on the developer's machine, which `/sandbox/v1` answers too. */
const LOOPBACK_ORIGIN = 'http://localhost:5173';

/** `call` sent, or a skip when no HTTP server answers it (an in-page target). */
async function overHttp(context: CheckContext, method: string, path: string, call: ApiCall, why: string): Promise<ApiAnswer> {
  try {
    return await context.client.request(method, path, call);
  } catch (error) {
    if (error instanceof TargetUnreachable) throw new CheckSkipped(`nothing answered ${method} ${path} over HTTP (${error.message.slice(0, 120)}): ${why}`);
    throw error;
  }
}

/** The paths every OpenAPI document of this API names. */
const V1_PATHS = ['/api/v1/payment-requests', '/api/v1/payment-requests/{id}', '/api/v1/payment-requests/{id}/status'];

async function holdOpenApi(context: CheckContext): Promise<void> {
  const answer = await overHttp(context, 'GET', '/openapi.json', {}, 'an in-page target (MSW handlers) serves no document');
  assert(answer.status === 200, `GET /openapi.json: expected 200 with the OpenAPI document, got ${answer.status} ${safeBody(answer)}`);
  const document = answer.body;
  assert(isObject(document), `GET /openapi.json: expected a JSON object, got ${safeBody(answer)}`);
  assert(typeof document.openapi === 'string' && /^3\.1\.\d+$/.test(document.openapi), `GET /openapi.json: expected "openapi": "3.1.x", got ${show(document.openapi)}`);
  const paths = isObject(document.paths) ? Object.keys(document.paths) : [];
  // Path templates may name the id otherwise ({paymentRequestId}): compared with every parameter as {id}.
  const named = new Set(paths.map((path) => path.replace(/\{[^}]+\}/g, '{id}')));
  const missing = V1_PATHS.filter((path) => !named.has(path));
  assert(missing.length === 0, `GET /openapi.json: expected the v1 API's paths, got none for ${missing.join(', ')} (paths: ${show(paths.slice(0, 8))})`);
  assert(paths.some((path) => path.startsWith(`${CONTROL}/`)), `GET /openapi.json: expected the control API's paths (${CONTROL}/…), got none`);
  assert(isObject(document.webhooks) && Object.keys(document.webhooks).length > 0, `GET /openapi.json: expected the webhook events in "webhooks", got ${show(document.webhooks)}`);
}

/** A header's values as a lower-case list (`*` stays `*`). */
const listed = (answer: ApiAnswer, name: string) => (answer.headers.get(name) ?? '').split(',').map((value) => value.trim().toLowerCase()).filter((value) => value !== '');

/** Whether a browser would let a page of `origin` read the answer (CORS). */
function allowsOrigin(answer: ApiAnswer, origin: string): boolean {
  const allowed = answer.headers.get('access-control-allow-origin');
  return allowed === '*' || allowed === origin;
}

async function holdCors(context: CheckContext): Promise<void> {
  const preflight = (path: string, method: string) =>
    overHttp(context, 'OPTIONS', path, { key: null, headers: { origin: FOREIGN_ORIGIN, 'access-control-request-method': method, 'access-control-request-headers': 'authorization,content-type' } }, 'an in-page target (MSW handlers) has no CORS to guard');
  // v1: any origin may call it, with a key and a JSON body (a browser asks first).
  const v1 = await preflight(COLLECTION, 'POST');
  const what = `OPTIONS ${COLLECTION} from ${FOREIGN_ORIGIN} (a preflight of POST with authorization and content-type)`;
  assert(v1.status >= 200 && v1.status < 300, `${what}: expected a 2xx, got ${v1.status} ${safeBody(v1)}`);
  assert(allowsOrigin(v1, FOREIGN_ORIGIN), `${what}: expected access-control-allow-origin * or the origin, got ${show(v1.headers.get('access-control-allow-origin'))}`);
  const methods = listed(v1, 'access-control-allow-methods');
  assert(methods.includes('post') || methods.includes('*'), `${what}: expected access-control-allow-methods to allow POST, got ${show(v1.headers.get('access-control-allow-methods'))}`);
  // A wildcard does not cover Authorization (Fetch): it must be named.
  const headers = listed(v1, 'access-control-allow-headers');
  assert(headers.includes('authorization'), `${what}: expected access-control-allow-headers to name authorization (a * does not cover it), got ${show(v1.headers.get('access-control-allow-headers'))}`);
  const read = await context.client.get(`${COLLECTION}/pr_lnprconformancecors`, { headers: { origin: FOREIGN_ORIGIN } });
  assert(allowsOrigin(read, FOREIGN_ORIGIN), `GET ${COLLECTION}/… from ${FOREIGN_ORIGIN}: expected access-control-allow-origin * or the origin (so the page reads the answer, here ${read.status}), got ${show(read.headers.get('access-control-allow-origin'))}`);

  // The control API: no foreign origin (only the sandbox's own, loopback and --cors-origin ones).
  const clock = `${CONTROL}/clock`;
  const control = await preflight(clock, 'GET');
  assert(!allowsOrigin(control, FOREIGN_ORIGIN), `OPTIONS ${clock} from ${FOREIGN_ORIGIN}: expected no access-control-allow-origin for a foreign origin, got ${show(control.headers.get('access-control-allow-origin'))}`);
  const controlRead = await context.client.get(clock, { headers: { origin: FOREIGN_ORIGIN } });
  assert(!allowsOrigin(controlRead, FOREIGN_ORIGIN), `GET ${clock} from ${FOREIGN_ORIGIN}: expected no access-control-allow-origin for a foreign origin, got ${show(controlRead.headers.get('access-control-allow-origin'))}`);
  // …but a loopback origin (a front end on this machine) it answers.
  const local = await overHttp(context, 'OPTIONS', clock, { key: null, headers: { origin: LOOPBACK_ORIGIN, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' } }, 'an in-page target (MSW handlers) has no CORS to guard');
  assert(
    local.status >= 200 && local.status < 300 && allowsOrigin(local, LOOPBACK_ORIGIN),
    `OPTIONS ${clock} from ${LOOPBACK_ORIGIN} (a loopback origin): expected a 2xx with access-control-allow-origin ${LOOPBACK_ORIGIN}, got ${local.status} with ${show(local.headers.get('access-control-allow-origin'))}`,
  );
}

/**
 * The hosted pay page of a request the check creates (with a marker in its metadata), read without
 * a key: 200 HTML without its metadata; an unknown id, 404.
 */
async function holdPayPage(context: CheckContext): Promise<void> {
  const marker = `lnprmeta${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
  const request = await createPaymentRequest(context, { description: 'lnpr conformance: pay page', metadata: { conformanceMarker: marker } });
  const path = `/pay/${encodeURIComponent(request.id)}`;
  const page = await overHttp(context, 'GET', path, { key: null, headers: { accept: 'text/html' } }, 'an in-page target (MSW handlers) serves no pages');
  assert(page.status === 200, `GET ${path} without a key: expected 200 with the pay page, got ${page.status} ${safeBody(page)}`);
  assert(/^text\/html\b/i.test(page.headers.get('content-type') ?? ''), `GET ${path}: expected an HTML page, got content-type ${show(page.headers.get('content-type'))}`);
  // What the page shows may be drawn in the browser (ours reads it with a script): only what the
  // HTML holds is judged here, and it must not hold the metadata.
  assert(!page.text.toLowerCase().includes(marker.toLowerCase()), `GET ${path}: the page shows the request's metadata (the marker ${show(marker)} is in it)`);
  const unknown = await context.client.get('/pay/pr_lnprconformanceunknown', { key: null, headers: { accept: 'text/html' } });
  assert(unknown.status === 404, `GET /pay/pr_lnprconformanceunknown (an unknown id) without a key: expected 404, got ${unknown.status}`);
}

/** The checks of the HTTP server's rules. */
export const httpServerChecks = [
  surfaceCheck(
    'sandbox.openapi-document',
    ['contract.openapi.served'],
    'GET /openapi.json answers 200 with an OpenAPI 3.1 document naming the v1 paths, control API paths and the webhook events',
    'CONTRACT: OpenAPI',
    'CONTRACT: "GET /openapi.json serves an OpenAPI 3.1 document of the v1 API, the control API and the webhook events (its webhooks section)"',
    (context) => holdOpenApi(context),
  ),
  surfaceCheck(
    'sandbox.cors',
    ['contract.browser.cors-v1', 'contract.browser.cors-sandbox'],
    'A foreign origin may call /api/v1 (a preflight of POST with authorization allowed; GET answers carry access-control-allow-origin) and gets no access-control-allow-origin from /sandbox/v1, which answers a loopback origin',
    'CONTRACT: Browsers and the network',
    'CONTRACT: "CORS: /api/v1/* answers any origin (front ends call it). /sandbox/v1/* and the dashboard\'s API answer only the sandbox\'s own origin and loopback origins, plus those given with --cors-origin ORIGIN"',
    (context) => holdCors(context),
    ['httpServer'],
  ),
  surfaceCheck(
    'sandbox.pay-page',
    ['contract.pay-page.no-key', 'contract.pay-page.no-metadata'],
    "GET /pay/{id} without a key answers the request's pay page (HTML), which holds none of its metadata; an unknown id, 404",
    'CONTRACT: Dashboard and hosted pay page',
    'CONTRACT: "GET /pay/{id}: the hosted pay page of one payment request, reachable without a key"; "no metadata"',
    (context) => holdPayPage(context),
    ['httpServer'],
  ),
];
