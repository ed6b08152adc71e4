/** `lnpr-sandbox/conformance`: run the v1 conformance suite against any implementation, by URL and key. */
export { runConformance, ConformanceUsageError } from './run-conformance.js';
export { TargetUnreachable } from './client.js';
export { ALL_CHECKS } from './checks/index.js';
export type { ConformanceOptions } from './options.js';
export type { ConformanceResult, CheckResult, RunAccount, RunFootprint } from './result.js';
export type { Check } from './check.js';
export type { CheckLevel, CheckOutcome, CheckProfile, Profile } from './vocabulary.js';
export { parseKnownFailing } from './known-failing.js';
