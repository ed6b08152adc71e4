/**
 * What each statement a client observes over HTTP is about, machine-readably enough for the
 * mutation operators (mutation-operators.ts) to aim at it: a field of the payment request, an
 * answer's status, an input rule of create, the key parser, the id lookup, an account boundary, a
 * timestamp, a state, an invoice part, a URL, a control call's answer, what a refused request
 * leaves behind, the events list and what the sandbox surfaces (webhook endpoints, test wallets) do.
 *
 * A side table here rather than a field of `Statement`: the table in conformance/statements.ts is
 * exported with the package and read by the docs, and these targets only mean something to the
 * fault proxy (its route names, our server's field names). Keeping them apart leaves the public
 * type as it is; generated-faults.test.ts fails when an observable statement has no entry, so the
 * two cannot drift apart silently.
 */

/** Which JSON type a field has (what `retype` turns it away from). */
export type ValueType = 'string' | 'number' | 'boolean' | 'object' | 'timestamp' | 'hex' | 'id' | 'url' | 'invoice';

/** A payment request answer a field rule applies to. */
export type Where = 'create' | 'read' | 'control';

/** A part of a BOLT 11 invoice a statement fixes. */
export type InvoicePart = 'signature' | 'network' | 'amount' | 'payment-hash' | 'payment-secret' | 'expiry' | 'timestamp' | 'description' | 'signer' | 'multiplicity';

/**
 * A control call (a path under /sandbox/v1), or a sandbox surface a target may offer: the events
 * list, webhook endpoints (the collection and one), test wallets (the collection and one), a
 * wallet's top-up, `GET /healthz`, an event's delivery attempts and its redelivery, the request
 * journal, and `GET /openapi.json`.
 */
export type ControlCall =
  | 'complete'
  | 'fail'
  | 'expire'
  | 'pay'
  | 'clock'
  | 'clock-advance'
  | 'reset'
  | 'accounts'
  | 'events'
  | 'webhook-endpoints'
  | 'wallets'
  | 'wallet-topup'
  | 'healthz'
  | 'deliveries'
  | 'redeliver'
  | 'journal'
  | 'openapi'
  | 'wallet';

/** A method of HTTP, where a target names one call of several on one path. */
export type Method = 'GET' | 'POST' | 'DELETE';

/** What the events list promises beyond its answer's fields: its order, an event per change, each event's body. */
export type EventsRule = 'newest-first' | 'every-change' | 'body';

/** What a sandbox surface's calls do beyond their answers' fields. */
export type SurfaceRule =
  | 'endpoint-filter'
  | 'endpoint-list'
  | 'endpoint-delete'
  | 'wallet-sats'
  | 'wallet-topup'
  | 'wallet-delete'
  | 'deliveries-newest-first'
  | 'journal-newest-first'
  | 'journal-no-secrets'
  | 'journal-delete'
  | 'pay-page-no-key'
  | 'delivery-emit'
  | 'delivery-signed'
  | 'delivery-headers'
  | 'delivery-filter'
  | 'pay-page-no-metadata'
  | 'cors-v1'
  | 'cors-sandbox';

export type Target =
  /** A field of every payment request object answered (`only`: custodial, nwc, completed requests). */
  | { kind: 'field'; field: string; type: ValueType; where?: Where[]; only?: 'custodial' | 'nwc' | 'completed' }
  /** The status code of an answer: create with a valid body, read/status of a known or unknown id. */
  | { kind: 'status'; route: 'create' | 'read' | 'status'; status: number; of: 'valid' | 'unknown' }
  /** An input rule of create: `bound` is the last accepted value (max) or the first accepted (min). */
  | { kind: 'input'; field: string; rule: 'required' | 'type' | 'invalid' | 'shape' | 'max' | 'min' | 'object' | 'json' | 'optional' }
  /** A response header of v1 answers. */
  | { kind: 'header'; name: string }
  /** How the key is read: which keys and schemes are accepted, for what. */
  | { kind: 'auth'; rule: 'scheme' | 'missing' | 'invalid' | 'permission' | 'read-only-get' | 'read-only-control' | 'accounts-key' }
  /** How an id in a path is matched. */
  | { kind: 'lookup'; route: 'read' | 'status' | 'control' }
  /** What one account may see or move of another's. */
  | { kind: 'account'; surface: 'read' | 'clock' | 'control' | 'reset' }
  /** A timestamp field and when it may move. */
  | { kind: 'timestamp'; field: 'createdAt' | 'updatedAt' | 'expiresAt'; moves: 'never' | 'on-change' | 'from-clock' }
  /** A state a request reaches, and through which call. */
  | { kind: 'state'; status: 'pending' | 'completed' | 'failed' | 'expired'; by: 'create' | 'complete' | 'fail' | 'expire' | 'clock' | 'pay' }
  /** The fee rules. */
  | { kind: 'fee'; rule: 'below' | 'from' | 'percentage' | 'both-modes' }
  /** A part of the invoice. */
  | { kind: 'invoice'; part: InvoicePart }
  /** A URL field. */
  | { kind: 'url'; field: 'nwcRelay'; schemes: string[] }
  /** A control call's answer: its status and the fields it promises (`method`: of that method only). */
  | { kind: 'control-answer'; call: ControlCall; status: number; fields: Record<string, ValueType>; method?: Method }
  /** The events list (`GET /sandbox/v1/events`). */
  | { kind: 'events'; rule: EventsRule }
  /** A sandbox surface's behaviour (webhook endpoints, test wallets). */
  | { kind: 'surface'; rule: SurfaceRule }
  /** A refused request (401, 400, 409) changes nothing and emits nothing. */
  | { kind: 'refusal'; of: 'create' | 'transition' }
  /** A terminal state refuses transitions. */
  | { kind: 'terminal'; status: number }
  /** What a 400 body says beyond its status. */
  | { kind: 'error-body'; status: number };

const field = (name: string, type: ValueType, extra: Partial<Extract<Target, { kind: 'field' }>> = {}): Target => ({ kind: 'field', field: name, type, ...extra });
const input = (name: string, rule: Extract<Target, { kind: 'input' }>['rule']): Target => ({ kind: 'input', field: name, rule });
const invoice = (part: InvoicePart): Target => ({ kind: 'invoice', part });
const answer = (call: ControlCall, status: number, fields: Record<string, ValueType> = {}, method?: Method): Target => ({ kind: 'control-answer', call, status, fields, ...(method ? { method } : {}) });
const PR_FIELDS: Record<string, ValueType> = { id: 'id', status: 'string', amount: 'number', invoice: 'invoice', updatedAt: 'timestamp' };

/** Statement id → what it is about. Every statement observable over `v1` or `control` has an entry. */
export const TARGETS: Readonly<Record<string, readonly Target[]>> = {
  'spec.service.sats': [field('amount', 'number'), field('feeAmount', 'number')],
  'spec.service.mode-from-account': [field('isNwc', 'boolean')],
  'spec.service.nwc-through-wallet': [invoice('signer'), field('nwcRelay', 'url', { only: 'nwc' })],
  'spec.service.is-nwc-every-response': [field('isNwc', 'boolean')],
  'spec.service.fee-charged': [field('feeAmount', 'number'), { kind: 'fee', rule: 'from' }],
  'spec.service.fee-same-both-modes': [{ kind: 'fee', rule: 'both-modes' }],
  'spec.resource.id-prefix': [field('id', 'id')],
  'spec.resource.id-identifies': [{ kind: 'lookup', route: 'read' }],
  'spec.resource.status-values': [field('status', 'string')],
  'spec.resource.amount': [field('amount', 'number')],
  'spec.resource.description': [field('description', 'string')],
  'spec.resource.invoice-present': [field('invoice', 'invoice')],
  'spec.resource.invoice-bolt11': [invoice('signature')],
  'spec.resource.payment-hash-present': [field('paymentHash', 'hex')],
  'spec.resource.payment-hash-tracking': [field('paymentHash', 'hex'), invoice('payment-hash')],
  'spec.resource.expires-at': [field('expiresAt', 'timestamp')],
  'spec.resource.is-nwc': [field('isNwc', 'boolean')],
  'spec.resource.nwc-relay-only-when-nwc': [field('nwcRelay', 'url', { only: 'nwc' })],
  'spec.resource.preimage-absent-before': [{ kind: 'state', status: 'pending', by: 'create' }],
  'spec.resource.preimage-proof': [field('preimage', 'hex', { only: 'completed' })],
  'spec.resource.fee-amount': [field('feeAmount', 'number')],
  'spec.resource.fee-percentage': [field('feePercentage', 'number')],
  'spec.resource.metadata-as-given': [field('metadata', 'object')],
  'spec.resource.created-at': [field('createdAt', 'timestamp')],
  'spec.resource.updated-at': [field('updatedAt', 'timestamp')],
  'spec.resource.updated-at-changes': [{ kind: 'timestamp', field: 'updatedAt', moves: 'on-change' }],
  'spec.resource.destination-wallet-records-only': [invoice('signer')],
  'spec.resource.destination-wallet-hidden': [field('destinationWallet', 'string')],
  'spec.fees.below-threshold': [{ kind: 'fee', rule: 'below' }],
  'spec.fees.from-threshold': [{ kind: 'fee', rule: 'from' }],
  'spec.fees.examples': [{ kind: 'fee', rule: 'below' }, { kind: 'fee', rule: 'from' }],
  'spec.fees.fields': [field('feeAmount', 'number'), field('feePercentage', 'number')],
  'spec.fees.percentage-10000': [{ kind: 'fee', rule: 'percentage' }],
  'spec.states.pending-initial': [{ kind: 'state', status: 'pending', by: 'create' }],
  'spec.states.completed': [{ kind: 'state', status: 'completed', by: 'complete' }],
  'spec.states.expired': [{ kind: 'state', status: 'expired', by: 'clock' }],
  'spec.states.failed': [{ kind: 'state', status: 'failed', by: 'fail' }],
  'spec.endpoints.prefix': [{ kind: 'status', route: 'read', status: 200, of: 'valid' }],
  'spec.endpoints.json': [{ kind: 'header', name: 'content-type' }, input('body', 'json')],
  'spec.endpoints.auth-required': [{ kind: 'auth', rule: 'missing' }],
  'spec.create.201': [{ kind: 'status', route: 'create', status: 201, of: 'valid' }],
  'spec.create.201-fields': Object.entries(PR_FIELDS).map(([name, type]) => field(name, type, { where: ['create'] })),
  'spec.create.201-pending': [{ kind: 'state', status: 'pending', by: 'create' }],
  'spec.create.body-object': [input('body', 'object'), input('body', 'json')],
  'spec.create.amount-required': [input('amount', 'required')],
  'spec.create.amount-number': [input('amount', 'type')],
  'spec.create.amount-invalid': [input('amount', 'invalid')],
  'spec.create.amount-minimum': [input('amount', 'min')],
  'spec.create.description-required': [input('description', 'required')],
  'spec.create.description-string': [input('description', 'type')],
  'spec.create.description-max': [input('description', 'max')],
  'spec.create.destination-wallet-required': [input('destinationWallet', 'required')],
  'spec.create.destination-wallet-address': [input('destinationWallet', 'shape')],
  'spec.create.metadata-optional': [input('metadata', 'optional')],
  'spec.create.metadata-object': [input('metadata', 'object')],
  'spec.create.expires-in-optional': [input('expiresIn', 'optional')],
  'spec.create.expires-in-seconds': [{ kind: 'timestamp', field: 'expiresAt', moves: 'never' }, invoice('expiry')],
  'spec.create.expires-in-number': [input('expiresIn', 'type')],
  'spec.create.400-details': [{ kind: 'error-body', status: 400 }],
  'spec.get.200': [{ kind: 'status', route: 'read', status: 200, of: 'valid' }, field('amount', 'number', { where: ['read'] })],
  'spec.get.nwc-relay': [field('nwcRelay', 'url', { only: 'nwc', where: ['read'] })],
  'spec.get.preimage-when-completed': [field('preimage', 'hex', { only: 'completed', where: ['read'] })],
  'spec.get.404': [{ kind: 'status', route: 'read', status: 404, of: 'unknown' }, { kind: 'lookup', route: 'read' }],
  'spec.status.200-one-field': [{ kind: 'status', route: 'status', status: 200, of: 'valid' }],
  'spec.status.agrees': [{ kind: 'state', status: 'completed', by: 'complete' }],
  'spec.status.404': [{ kind: 'status', route: 'status', status: 404, of: 'unknown' }, { kind: 'lookup', route: 'status' }],
  'spec.auth.bearer-header': [{ kind: 'auth', rule: 'scheme' }],
  'spec.auth.missing-401': [{ kind: 'auth', rule: 'missing' }],
  'spec.auth.invalid-401': [{ kind: 'auth', rule: 'invalid' }],
  'spec.auth.permission-401': [{ kind: 'auth', rule: 'permission' }],
  'contract.read-only.get': [{ kind: 'auth', rule: 'read-only-get' }],
  'contract.read-only.secrets-hidden': [{ kind: 'auth', rule: 'read-only-control' }],
  'contract.read-only.control-401': [{ kind: 'auth', rule: 'read-only-control' }],
  'contract.control.same-keys': [{ kind: 'auth', rule: 'invalid' }],
  'contract.control.own-account': [{ kind: 'account', surface: 'control' }],
  'contract.control.json': [answer('clock', 200, { now: 'timestamp' })],
  'contract.control.complete': [{ kind: 'state', status: 'completed', by: 'complete' }],
  'contract.control.complete-answer': [answer('complete', 200, PR_FIELDS)],
  'contract.control.fail': [{ kind: 'state', status: 'failed', by: 'fail' }],
  'contract.control.fail-answer': [answer('fail', 200, PR_FIELDS)],
  'contract.control.expire': [{ kind: 'state', status: 'expired', by: 'expire' }],
  'contract.control.expire-answer': [answer('expire', 200, PR_FIELDS)],
  'contract.control.pay': [{ kind: 'state', status: 'completed', by: 'pay' }],
  'contract.control.pay-answer': [answer('pay', 200, { paymentRequestId: 'id', status: 'string', preimage: 'hex' })],
  'contract.control.pay-unknown-404': [answer('pay', 404)],
  'contract.control.clock-now': [answer('clock', 200, { now: 'timestamp' })],
  'contract.control.clock-frozen': [answer('clock', 200, { frozen: 'boolean' })],
  'contract.control.clock-per-account': [{ kind: 'account', surface: 'clock' }],
  'contract.control.clock-advance': [{ kind: 'timestamp', field: 'expiresAt', moves: 'from-clock' }],
  'contract.control.clock-advance-answer': [answer('clock-advance', 200, { now: 'timestamp', frozen: 'boolean' })],
  'contract.control.reset-204': [answer('reset', 204)],
  'contract.control.reset-deletes': [{ kind: 'account', surface: 'reset' }],
  'contract.control.reset-clock': [answer('reset', 204)],
  'contract.control.reset-keeps': [answer('reset', 204)],
  'contract.control.terminal-409': [{ kind: 'terminal', status: 409 }],
  'contract.control.terminal-unchanged': [{ kind: 'refusal', of: 'transition' }],
  'contract.control.unknown-id-404': [{ kind: 'lookup', route: 'control' }],
  'contract.control.expired-on-clock': [{ kind: 'state', status: 'expired', by: 'clock' }, { kind: 'timestamp', field: 'expiresAt', moves: 'from-clock' }],
  'contract.accounts.isolated': [{ kind: 'account', surface: 'read' }],
  'contract.accounts.create': [answer('accounts', 201, { id: 'string', mode: 'string', keys: 'object', createdAt: 'timestamp' })],
  'contract.accounts.new-empty': [{ kind: 'account', surface: 'read' }],
  'contract.accounts.list': [answer('accounts', 200, { data: 'object' })],
  'contract.accounts.delete': [answer('accounts', 204)],
  'contract.accounts.keys-permission': [{ kind: 'auth', rule: 'accounts-key' }],
  'contract.healthz': [answer('healthz', 200, {}, 'GET')],
  'contract.webhooks.endpoint-create': [answer('webhook-endpoints', 201, { id: 'id', url: 'url', events: 'object', faults: 'object', secret: 'string', createdAt: 'timestamp' }, 'POST'), { kind: 'surface', rule: 'endpoint-filter' }],
  'contract.webhooks.endpoint-list': [answer('webhook-endpoints', 200, { data: 'object' }, 'GET'), { kind: 'surface', rule: 'endpoint-list' }],
  'contract.webhooks.endpoint-delete': [answer('webhook-endpoints', 204, {}, 'DELETE'), { kind: 'surface', rule: 'endpoint-delete' }],
  'contract.webhooks.events-every-change': [{ kind: 'events', rule: 'every-change' }],
  'contract.webhooks.events-list': [answer('events', 200, { data: 'object' }, 'GET'), { kind: 'events', rule: 'newest-first' }],
  'contract.webhooks.body': [{ kind: 'events', rule: 'body' }],
  'contract.webhooks.deliveries-list': [answer('deliveries', 200, { data: 'object' }, 'GET'), { kind: 'surface', rule: 'deliveries-newest-first' }],
  'contract.webhooks.redeliver': [answer('redeliver', 202, {}, 'POST')],
  'contract.journal.list': [answer('journal', 200, { data: 'object' }, 'GET'), { kind: 'surface', rule: 'journal-newest-first' }],
  'contract.journal.no-secrets': [{ kind: 'surface', rule: 'journal-no-secrets' }],
  'contract.journal.delete': [{ kind: 'surface', rule: 'journal-delete' }],
  'contract.webhooks.emit': [{ kind: 'surface', rule: 'delivery-emit' }],
  'contract.nwc.wallet-endpoint': [answer('wallet', 200, { relay: 'url', walletPubkey: 'hex', online: 'boolean', encryption: 'string' }, 'GET')],
  'contract.webhooks.standard-signed': [{ kind: 'surface', rule: 'delivery-signed' }],
  'contract.webhooks.headers': [{ kind: 'surface', rule: 'delivery-headers' }],
  'contract.webhooks.events-filter': [{ kind: 'surface', rule: 'delivery-filter' }],
  'contract.pay-page.no-key': [{ kind: 'surface', rule: 'pay-page-no-key' }],
  'contract.pay-page.no-metadata': [{ kind: 'surface', rule: 'pay-page-no-metadata' }],
  'contract.openapi.served': [answer('openapi', 200, { openapi: 'string', paths: 'object', webhooks: 'object' }, 'GET')],
  'contract.browser.cors-v1': [{ kind: 'surface', rule: 'cors-v1' }],
  'contract.browser.cors-sandbox': [{ kind: 'surface', rule: 'cors-sandbox' }],
  'contract.wallets.api': [
    answer('wallets', 201, { id: 'id', name: 'string', balance: 'number', nwcUrl: 'url', createdAt: 'timestamp' }, 'POST'),
    answer('wallets', 200, { id: 'id', balance: 'number' }, 'GET'),
    answer('wallet-topup', 200, { id: 'id', balance: 'number' }, 'POST'),
    answer('wallets', 204, {}, 'DELETE'),
    { kind: 'surface', rule: 'wallet-delete' },
  ],
  'contract.wallets.balance-sats': [{ kind: 'surface', rule: 'wallet-sats' }],
  'contract.wallets.topup-adds': [{ kind: 'surface', rule: 'wallet-topup' }],
  'contract.nwc.relay-in-responses': [field('nwcRelay', 'url', { only: 'nwc' })],
  'contract.nwc.wallet-invoice': [invoice('signer')],
  'contract.invoice.valid': [invoice('signature')],
  'contract.invoice.network': [invoice('network')],
  'contract.invoice.amount': [invoice('amount')],
  'contract.invoice.payment-hash': [invoice('payment-hash')],
  'contract.invoice.payment-secret': [invoice('payment-secret')],
  'contract.invoice.expiry': [invoice('expiry')],
  'contract.invoice.timestamp': [invoice('timestamp')],
  'contract.invoice.description': [invoice('description')],
  'contract.invoice.preimage': [field('preimage', 'hex', { only: 'completed' })],
  'contract.invoice.signer-nwc': [invoice('signer')],
  'contract.invoice.signer-custodial': [invoice('signer')],
  'contract.reading.character': [input('description', 'max')],
  'contract.reading.expires-at': [{ kind: 'timestamp', field: 'expiresAt', moves: 'never' }],
  'contract.reading.created-at-fixed': [{ kind: 'timestamp', field: 'createdAt', moves: 'never' }],
  'contract.reading.updated-at-not-before': [{ kind: 'timestamp', field: 'updatedAt', moves: 'on-change' }],
  'contract.reading.updated-at-only-on-change': [{ kind: 'timestamp', field: 'updatedAt', moves: 'on-change' }],
  'contract.reading.metadata-untouched': [field('metadata', 'object')],
  'contract.reading.nwc-relay-absent': [field('nwcRelay', 'url', { only: 'custodial' })],
  'contract.reading.nwc-relay-url': [{ kind: 'url', field: 'nwcRelay', schemes: ['ws:', 'wss:'] }],
  'contract.reading.invoice-multiplicities': [invoice('multiplicity')],
  'contract.reading.id-exact': [{ kind: 'lookup', route: 'read' }, { kind: 'lookup', route: 'status' }],
  'contract.reading.other-account': [{ kind: 'account', surface: 'read' }],
  'contract.reading.bearer-only': [{ kind: 'auth', rule: 'scheme' }],
  'contract.reading.refused-changes-nothing': [{ kind: 'refusal', of: 'create' }, { kind: 'refusal', of: 'transition' }],
};
