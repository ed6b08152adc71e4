/**
 * Where the spec says "not shown", the sandbox picks a default and makes it a setting. Every such
 * choice lives here, with the reason for its default, so the README can quote one place.
 */
/** Where webhooks may go: anywhere, or public addresses plus the operator's exceptions. */
export type WebhookAddressPolicy =
  | 'any'
  | {
      /** Origins (`http://127.0.0.1:3000`, as `URL.origin` has them) exempt whatever they resolve to. */
      readonly allowedOrigins: readonly string[];
      /** Hosts exempt on any port: names, or addresses (also when a name resolves to them); `*` exempts everything. */
      readonly allowedHosts: readonly string[];
    };

/** How a fee of 0.5 % that is not a whole number of sats is rounded (spec: "not shown"). */
export type FeeRounding = 'floor' | 'round' | 'ceil';

/** What `feePercentage` shows when the 10-sat floor applies (spec: "not shown"). */
export type FeePercentageBelowThreshold = 'rate' | 'effective';

/** The engine's settings; every field has a default in `DEFAULT_SETTINGS`. */
export interface SandboxSettings {
  /** Smallest accepted amount in sats. The spec says 21 in one place and 1 in another; 21 is the stricter. */
  minAmount: number;
  /** Largest accepted amount in sats: 21 million BTC, the most any invoice can honestly ask. */
  maxAmount: number;
  feeRounding: FeeRounding;
  feePercentageBelowThreshold: FeePercentageBelowThreshold;
  /** `expiresIn` when the body has none (spec: 3600). */
  defaultExpiresIn: number;
  minExpiresIn: number;
  /** One year: long enough for any test, short enough to catch unit mistakes (ms for s). */
  maxExpiresIn: number;
  /** Size of `metadata` serialized as JSON, in UTF-8 bytes. */
  maxMetadataBytes: number;
  /** Nesting depth of `metadata` (the object itself is depth 1). */
  maxMetadataDepth: number;
  /** Whether the `/sandbox/v1` control API is served. */
  controls: boolean;
  /**
   * Where webhooks may go: `any` (a sandbox only this machine reaches), or public addresses plus
   * the operator's exact origins and hosts (`lnpr serve` sets that when it listens beyond
   * loopback). Applied at registration and at each attempt; see the README's "Webhooks".
   */
  webhookAllowedHosts: WebhookAddressPolicy;
  /** Seconds an NWC account's connected wallet has to answer `make_invoice` before a create gets 502 `wallet_unavailable`. */
  nwcTimeoutSeconds: number;
  /** `/api/v1` calls per second per API key; 0: no limit (the spec shows none). */
  rateLimit: number;
}

/** The defaults, documented in the README under "Open points". */
export const DEFAULT_SETTINGS: Readonly<SandboxSettings> = Object.freeze({
  minAmount: 21,
  maxAmount: 2_100_000_000_000_000,
  feeRounding: 'round',
  feePercentageBelowThreshold: 'rate',
  defaultExpiresIn: 3600,
  minExpiresIn: 1,
  maxExpiresIn: 31_536_000,
  maxMetadataBytes: 16_384,
  maxMetadataDepth: 16,
  controls: true,
  webhookAllowedHosts: 'any',
  nwcTimeoutSeconds: 10,
  rateLimit: 0,
});

/** Merges user settings over the defaults and rejects combinations that cannot work. */
export function resolveSettings(overrides: Partial<SandboxSettings> = {}): SandboxSettings {
  const settings: SandboxSettings = { ...DEFAULT_SETTINGS, ...withoutUndefined(overrides) };
  if (!Number.isSafeInteger(settings.minAmount) || settings.minAmount < 1) {
    throw new RangeError(`minAmount must be a whole number of sats, at least 1 (got ${settings.minAmount})`);
  }
  if (!Number.isSafeInteger(settings.maxAmount) || settings.maxAmount < settings.minAmount) {
    throw new RangeError(`maxAmount must be a whole number of sats, at least minAmount (got ${settings.maxAmount})`);
  }
  if (!['floor', 'round', 'ceil'].includes(settings.feeRounding)) {
    throw new RangeError(`feeRounding must be floor, round or ceil (got ${settings.feeRounding})`);
  }
  if (!['rate', 'effective'].includes(settings.feePercentageBelowThreshold)) {
    throw new RangeError(`feePercentageBelowThreshold must be rate or effective (got ${settings.feePercentageBelowThreshold})`);
  }
  const { minExpiresIn, maxExpiresIn, defaultExpiresIn } = settings;
  if (!(Number.isSafeInteger(minExpiresIn) && minExpiresIn >= 1 && Number.isSafeInteger(maxExpiresIn) && maxExpiresIn >= minExpiresIn)) {
    throw new RangeError(`expiresIn bounds must be whole seconds with 1 <= min <= max (got ${minExpiresIn}..${maxExpiresIn})`);
  }
  if (!(Number.isSafeInteger(defaultExpiresIn) && defaultExpiresIn >= minExpiresIn && defaultExpiresIn <= maxExpiresIn)) {
    throw new RangeError(`defaultExpiresIn must lie within the expiresIn bounds (got ${defaultExpiresIn})`);
  }
  if (!(Number.isFinite(settings.nwcTimeoutSeconds) && settings.nwcTimeoutSeconds > 0 && settings.nwcTimeoutSeconds <= 300)) {
    throw new RangeError(`nwcTimeoutSeconds must be a number of seconds above 0 and at most 300 (got ${settings.nwcTimeoutSeconds})`);
  }
  if (!(Number.isSafeInteger(settings.rateLimit) && settings.rateLimit >= 0)) {
    throw new RangeError(`rateLimit must be a whole number of calls per second, 0 for none (got ${settings.rateLimit})`);
  }
  const policy = settings.webhookAllowedHosts;
  if (policy !== 'any' && !(typeof policy === 'object' && Array.isArray(policy.allowedOrigins) && Array.isArray(policy.allowedHosts))) {
    throw new RangeError('webhookAllowedHosts must be "any" or { allowedOrigins: string[], allowedHosts: string[] }');
  }
  return settings;
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

// Fixed bounds of every request body, checked before a body is parsed (pipeline/json-scan.ts).
// Not settings, but chosen beside `maxMetadataDepth` and `maxMetadataBytes`, which they must leave room for.

/**
 * How deep a request body may nest; the body itself is level 1. The deepest body a route takes is
 * a rule whose metadata nests as deep as a create body's may (`maxMetadataDepth`, 16):
 * `{rules: [{match: {metadata: …16…}}]}`, 20 levels. 32 leaves room for that and stays far from
 * the depth at which recursive code (`JSON.stringify` of an answer: a few thousand levels) fails.
 */
export const MAX_BODY_DEPTH = 32;

/**
 * How many values a request body may hold (objects, arrays and scalars; a member's key is not
 * counted apart). The largest bodies a route takes: create metadata of 16 KiB as JSON (at most
 * about 8,200 values, as `[0,0,…]`), 1,000 rules of up to 9 values each. At 10,000 the costliest
 * shapes within the bound (10,000 unknown keys, a metadata object of 10,000 keys) were parsed,
 * validated and answered in 5-7 ms when measured; at 20,000 they came near 20 ms.
 */
export const MAX_BODY_VALUES = 10_000;
