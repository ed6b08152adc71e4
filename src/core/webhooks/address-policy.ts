/**
 * Which addresses webhook deliveries may go to. A sandbox only this machine reaches may send
 * anywhere; one that listens beyond loopback would otherwise let any key holder make it send
 * requests into its operator's network (or read a port's state from the delivery log), so it
 * refuses loopback, private, link-local, carrier-grade NAT, unspecified, multicast, reserved and
 * cloud metadata addresses, except the exact origins the operator configured (`--webhook`, the
 * accounts file) and the hosts they allowed (`--webhook-allow-host`).
 *
 * Pure and browser-safe: one decision, made on what a URL shows (registration, and again before
 * each attempt) and on each address a name resolves to (at each attempt, by a sender that can
 * resolve names: the Node sender resolves, checks, and connects to the address it checked).
 */
import type { WebhookAddressPolicy } from '../settings.js';

/** Why an address is refused. */
export type RefusedKind = 'loopback' | 'private' | 'link-local' | 'carrier-grade NAT' | 'unspecified' | 'multicast' | 'reserved' | 'metadata';

/** An address (or a name) the policy refuses, and why. */
export interface AddressRefusal {
  address: string;
  kind: RefusedKind;
}

/** How an attempt to a URL goes under the policy. */
export type AttemptGuard = { refused: AddressRefusal } | { checkAddress?: (address: string) => AddressRefusal | undefined };

/** Cloud metadata services, by address and by name. */
const METADATA_ADDRESSES = new Set(['169.254.169.254', '169.254.170.2', '192.0.0.192', 'fd00:ec2::254']);
const METADATA_NAMES = new Set(['metadata', 'metadata.google.internal', 'metadata.goog', 'instance-data', 'instance-data.ec2.internal']);

/** "address not allowed: 10.0.0.5 (private)". */
export function refusalMessage(refusal: AddressRefusal): string {
  return `address not allowed: ${refusal.address} (${refusal.kind})`;
}

/** The host of a URL or a resolver's answer as compared: lower case, without brackets, a zone or a final dot. */
export function normalHost(host: string): string {
  const bare = host.toLowerCase().replace(/^\[|\]$/g, '').replace(/%.*$/, '').replace(/\.$/, '');
  const v6 = parseIPv6(bare);
  if (v6 === undefined) return bare;
  const mapped = mappedIPv4(v6);
  return mapped !== undefined ? mapped.join('.') : formatIPv6(v6);
}

/**
 * An operator's `--webhook-allow-host` value as the policy keeps it (`*`, a name, or an address in
 * the form URL parsing gives it), or undefined for what is not a host (a port, a path, a scheme).
 */
export function allowedHostOf(value: string): string | undefined {
  const trimmed = value.trim();
  if (trimmed === '*') return '*';
  if (trimmed === '' || /[/?#@\\\s]/.test(trimmed)) return undefined;
  const bracketed = trimmed.includes(':') && !trimmed.startsWith('[') ? `[${trimmed}]` : trimmed;
  try {
    const url = new URL(`http://${bracketed}/`);
    return url.port === '' && url.hostname !== '' ? normalHost(url.hostname) : undefined;
  } catch {
    return undefined;
  }
}

/** What kind of refused address `address` (an IP literal) is; undefined for a public one or a name. */
export function refusedKindOf(address: string): RefusedKind | undefined {
  const host = address.toLowerCase().replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const v4 = parseIPv4(host);
  if (v4 !== undefined) return ipv4Kind(v4);
  const v6 = parseIPv6(host);
  return v6 === undefined ? undefined : ipv6Kind(v6);
}

/** What kind of refused host a URL's host is by its name alone (`localhost`, metadata names), or as an address. */
function hostKind(host: string): RefusedKind | undefined {
  const name = normalHost(host);
  if (name === 'localhost' || name.endsWith('.localhost')) return 'loopback';
  if (METADATA_NAMES.has(name)) return 'metadata';
  return refusedKindOf(name);
}

/** Whether `host` (a URL's hostname, or an address) is an IP literal. */
export function isIpLiteral(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  return parseIPv4(bare) !== undefined || parseIPv6(bare) !== undefined;
}

/** Whether `host` (the address the server listens on) is reachable from this machine only. */
export function isLoopbackHost(host: string): boolean {
  return hostKind(host) === 'loopback';
}

/**
 * How an attempt to `url` goes: refused at once (its host is a refused address or name), sent with
 * a check of what its name resolves to, or sent unchecked (an exempt URL, or an open policy).
 */
export function attemptGuard(url: string, policy: WebhookAddressPolicy): AttemptGuard {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return {};
  }
  if (isExempt(parsed, policy)) return {};
  const kind = hostKind(parsed.hostname);
  if (kind !== undefined) return { refused: { address: normalHost(parsed.hostname), kind } };
  if (isIpLiteral(parsed.hostname)) return {};
  return { checkAddress: (address) => addressRefusal(address, policy) };
}

/** The refusal of a resolved address under the policy, or undefined where it may be used. */
export function addressRefusal(address: string, policy: WebhookAddressPolicy): AddressRefusal | undefined {
  if (policy === 'any' || policy.allowedHosts.includes('*')) return undefined;
  const normal = normalHost(address);
  if (policy.allowedHosts.includes(normal)) return undefined;
  const kind = refusedKindOf(normal);
  return kind === undefined ? undefined : { address: normal, kind };
}

/** The refusal of `url` at registration (what the URL itself shows; names are checked at each attempt), or undefined. */
export function urlRefusal(url: URL, policy: WebhookAddressPolicy): AddressRefusal | undefined {
  const guard = attemptGuard(url.href, policy);
  return 'refused' in guard ? guard.refused : undefined;
}

function isExempt(url: URL, policy: WebhookAddressPolicy): boolean {
  if (policy === 'any' || policy.allowedHosts.includes('*')) return true;
  return policy.allowedOrigins.includes(url.origin) || policy.allowedHosts.includes(normalHost(url.hostname));
}

function ipv4Kind([a, b, c, d]: number[]): RefusedKind | undefined {
  if (METADATA_ADDRESSES.has(`${a}.${b}.${c}.${d}`)) return 'metadata';
  if (a === 0) return 'unspecified';
  if (a === 127) return 'loopback';
  if (a === 10 || (a === 172 && (b! & 0xf0) === 16) || (a === 192 && b === 168)) return 'private';
  if (a === 169 && b === 254) return 'link-local';
  if (a === 100 && (b! & 0xc0) === 64) return 'carrier-grade NAT';
  if (a! >= 224 && a! <= 239) return 'multicast';
  if (a! >= 240) return 'reserved';
  return undefined;
}

function ipv6Kind(groups: number[]): RefusedKind | undefined {
  const embedded = mappedIPv4(groups);
  if (embedded !== undefined) return ipv4Kind(embedded);
  if (METADATA_ADDRESSES.has(formatIPv6(groups))) return 'metadata';
  if (groups.every((g) => g === 0)) return 'unspecified';
  if (groups.slice(0, 7).every((g) => g === 0) && groups[7] === 1) return 'loopback';
  const first = groups[0]!;
  if ((first & 0xfe00) === 0xfc00 || (first & 0xffc0) === 0xfec0) return 'private';
  if ((first & 0xffc0) === 0xfe80) return 'link-local';
  if ((first & 0xff00) === 0xff00) return 'multicast';
  return undefined;
}

/** The IPv4 address an IPv6 one carries: IPv4-mapped (::ffff:a.b.c.d), NAT64 (64:ff9b::a.b.c.d) or IPv4-compatible (::a.b.c.d). */
function mappedIPv4(groups: number[]): number[] | undefined {
  const zeroTo = (n: number) => groups.slice(0, n).every((g) => g === 0);
  const nat64 = groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((g) => g === 0);
  const compatible = zeroTo(6) && !(groups[6] === 0 && groups[7]! <= 1);
  if (!((zeroTo(5) && groups[5] === 0xffff) || nat64 || compatible)) return undefined;
  return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff];
}

/** Dotted-quad decimal (what URL parsing and resolvers give), or undefined. */
function parseIPv4(text: string): number[] | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((part) => /^\d{1,3}$/.test(part))) return undefined;
  const octets = parts.map(Number);
  return octets.every((octet) => octet <= 255) ? octets : undefined;
}

/** Eight 16-bit groups, with `::` and a final dotted quad; undefined for anything else. */
function parseIPv6(text: string): number[] | undefined {
  if (!text.includes(':')) return undefined;
  // A final dotted quad (::ffff:10.0.0.5) is two groups written another way.
  let rest = text;
  const dotted = /(?<=:)\d+\.\d+\.\d+\.\d+$/.exec(text);
  if (dotted) {
    const v4 = parseIPv4(dotted[0]);
    if (v4 === undefined) return undefined;
    rest = `${text.slice(0, dotted.index)}${((v4[0]! << 8) | v4[1]!).toString(16)}:${((v4[2]! << 8) | v4[3]!).toString(16)}`;
  }
  const halves = rest.split('::');
  if (halves.length > 2) return undefined;
  const groupsOf = (half: string) => (half === '' ? [] : half.split(':'));
  const head = groupsOf(halves[0]!);
  const after = halves.length === 2 ? groupsOf(halves[1]!) : [];
  if (![...head, ...after].every((group) => /^[0-9a-f]{1,4}$/.test(group))) return undefined;
  const explicit = head.length + after.length;
  if (halves.length === 1 ? explicit !== 8 : explicit > 7) return undefined;
  return [...head, ...Array<string>(8 - explicit).fill('0'), ...after].map((group) => parseInt(group, 16));
}

/** The canonical (RFC 5952) text of eight groups: lower case, the longest run of zeros as `::`. */
function formatIPv6(groups: number[]): string {
  let bestStart = -1;
  let bestLength = 1;
  for (let start = 0; start < 8; start++) {
    let length = 0;
    while (start + length < 8 && groups[start + length] === 0) length += 1;
    if (length > bestLength) [bestStart, bestLength] = [start, length];
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}
