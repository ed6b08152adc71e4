/** Every check of the suite, in report order. */
import type { Check } from '../check.js';
import { accountsChecks } from './accounts.js';
import { authChecks } from './auth.js';
import { controlChecks } from './control.js';
import { createChecks } from './create.js';
import { credentialChecks } from './credentials.js';
import { endpointChecks } from './endpoints.js';
import { exactnessChecks } from './exactness.js';
import { feeChecks } from './fees.js';
import { invoiceChecks } from './invoice.js';
import { lifecycleChecks } from './lifecycle.js';
import { nwcChecks } from './nwc.js';
import { readChecks } from './read.js';
import { httpServerChecks } from './http-server-rules.js';
import { sandboxRecordChecks } from './sandbox-records.js';
import { sandboxSurfaceChecks } from './sandbox-surfaces.js';
import { validationChecks } from './validation.js';

/** All checks; profiles select from them. */
export const ALL_CHECKS: readonly Check[] = [
  ...endpointChecks,
  ...authChecks,
  ...createChecks,
  ...feeChecks,
  ...validationChecks,
  ...readChecks,
  ...exactnessChecks,
  ...nwcChecks,
  ...invoiceChecks,
  ...lifecycleChecks,
  ...controlChecks,
  ...accountsChecks,
  ...credentialChecks,
  ...sandboxSurfaceChecks,
  ...sandboxRecordChecks,
  ...httpServerChecks,
];
