/** Every check of the suite, in report order. */
import type { Check } from '../check.js';
import { authChecks } from './auth.js';
import { createChecks } from './create.js';
import { endpointChecks } from './endpoints.js';
import { feeChecks } from './fees.js';
import { invoiceChecks } from './invoice.js';
import { lifecycleChecks } from './lifecycle.js';
import { nwcChecks } from './nwc.js';
import { readChecks } from './read.js';
import { validationChecks } from './validation.js';

/** All checks; profiles select from them. */
export const ALL_CHECKS: readonly Check[] = [
  ...endpointChecks,
  ...authChecks,
  ...createChecks,
  ...feeChecks,
  ...validationChecks,
  ...readChecks,
  ...nwcChecks,
  ...invoiceChecks,
  ...lifecycleChecks,
];
