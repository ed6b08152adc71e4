/**
 * `lnpr-sandbox`: the engine for use in-process, browser-safe. Node gets `index.node.ts`, the same
 * API with the faster signer and the JSON-file store.
 */
export { createSandbox, DEFAULT_ACCOUNTS, type Sandbox, type SandboxOptions } from './sandbox.js';
export { DEFAULT_SETTINGS, type SandboxSettings, type FeeRounding, type FeePercentageBelowThreshold } from './core/settings.js';
export type { ApiRequest, ApiResponse, RequestHandler } from './core/pipeline/handler.js';
export { ERROR_CATALOGUE, type ErrorBody, type ErrorCode, type ErrorDetail } from './core/errors/errors.js';
export type { AccountsConfig, AccountConfig, ApiKeyConfig, Permission } from './core/accounts/accounts.js';
export type { SandboxStore, ClockState } from './core/store/sandbox-store.js';
export type { WallClock, RandomSource, RecoverableSigner } from './core/ports.js';
export { feeFor } from './core/payments/fees.js';
export { decodeInvoice, type DecodedInvoice, type Network } from './lightning/index.js';
export type { PaymentRequest, PaymentRequestStatusBody, CreatePaymentRequestBody } from './schemas/index.js';
