/** Every check of the suite, in report order. */
import type { Check } from '../check.js';
import { authChecks } from './auth.js';

/** All checks; profiles select from them. */
export const ALL_CHECKS: readonly Check[] = [...authChecks];
