/**
 * Which `Host` headers the server answers: the defence against DNS rebinding. A page of
 * evil.example whose name its owner re-points at 127.0.0.1 reaches the sandbox as a same-origin
 * request carrying `Host: evil.example:8787`, where no CORS rule applies; only the name gives it
 * away. Accepted: `localhost`, the addresses the server listens on (for `0.0.0.0` or `::`, every
 * address of the machine, read again when an unknown one comes, at most once a second, so a new
 * Wi-Fi address works without a restart), and the names the server was given (the host of
 * `--public-url`, a `--host` name). A request without `Host` (HTTP/1.0) is accepted: browsers
 * always send one.
 *
 * Only the host is compared, never the port: a rebinding attacker chooses the name, not the
 * port (the page must be served from the sandbox's port for the browser to connect to it), and
 * a container's port map or a proxy legitimately changes the port.
 */
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';

/** How often, at most, the machine's addresses are read again for an unknown Host. */
const REREAD_MS = 1_000;
/** Host headers already accepted, remembered as sent (the check then costs one lookup). */
const REMEMBERED = 256;
/** What a Host header may hold: a name, an IPv4 address or a bracketed IPv6 one, and a port. */
const HOST_CHARACTERS = /^[a-z0-9._\-[\]:]+$/i;

/** Decides whether a request's `Host` names this server. */
export class HostCheck {
  readonly #names: Set<string>;
  readonly #listening: () => string[];
  #addresses = new Set<string>();
  #readAt = -Infinity;
  readonly #accepted = new Set<string>();

  /**
   * @param names host names or addresses accepted besides `localhost` and the listening addresses
   * @param listening the addresses the server listens on now (`0.0.0.0` or `::` for all)
   */
  constructor(names: readonly string[], listening: () => string[]) {
    this.#names = new Set(['localhost', ...names.map(hostnameOf).filter((name): name is string => name !== undefined)]);
    this.#listening = listening;
  }

  /** Whether a request with this `Host` header is for this server. */
  accepts(host: string | undefined): boolean {
    if (host === undefined || this.#accepted.has(host)) return true;
    const name = hostnameOf(host);
    if (name === undefined) return false;
    if (!this.#names.has(name) && !this.#addresses.has(name)) {
      if (performance.now() - this.#readAt < REREAD_MS) return false;
      this.#readAddresses();
      if (!this.#addresses.has(name)) return false;
    }
    if (this.#accepted.size >= REMEMBERED) this.#accepted.clear();
    this.#accepted.add(host);
    return true;
  }

  #readAddresses(): void {
    this.#readAt = performance.now();
    const listening = this.#listening();
    const all = listening.some((address) => address === '0.0.0.0' || address === '::');
    const addresses = all ? machineAddresses() : listening;
    this.#addresses = new Set(addresses.map(hostnameOf).filter((name): name is string => name !== undefined));
  }
}

/** Every address of this machine's interfaces (without zone ids, which a Host cannot carry usefully). */
function machineAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flatMap((entries) => entries ?? [])
    .map((entry) => entry.address)
    .filter((address) => !address.includes('%'));
}

/**
 * The host of a `Host` header (or a bare name or address) as a URL spells it: lower case, IPv4 in
 * dotted form, IPv6 bracketed and compressed, without port or final dot; undefined when it is not
 * a host at all.
 */
export function hostnameOf(host: string): string | undefined {
  const text = isIP(host) === 6 ? `[${host}]` : host;
  if (!HOST_CHARACTERS.test(text)) return undefined;
  try {
    const { hostname } = new URL(`http://${text}`);
    return hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
  } catch {
    return undefined;
  }
}
