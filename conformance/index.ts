/** `lnpr-sandbox/conformance`: run the v1 conformance suite against any implementation, by URL and key. */
export { runConformance, ConformanceUsageError } from './run-conformance.js';
export { TargetUnreachable } from './client.js';
export { ALL_CHECKS } from './checks/index.js';
export type { ConformanceOptions, Profile } from './options.js';
export type { ConformanceResult, CheckResult, CheckOutcome } from './result.js';
export type { Check, CheckLevel, CheckProfile } from './check.js';
export { formatCheckLine, formatSummary } from './reporters/pretty.js';
export { formatJunit } from './reporters/junit.js';
export { formatJson } from './reporters/json.js';
export { parseKnownFailing } from './known-failing.js';
