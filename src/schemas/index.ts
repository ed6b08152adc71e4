/** JSON Schemas of the v1 objects and request bodies, and their TypeScript types. */
export * from './payment-request.js';
export * from './create-payment-request.js';
export * from './error.js';
export * from './accounts-config.js';
