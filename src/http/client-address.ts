/**
 * Who a request comes from: the one "client address" the per-address limits count (live streams
 * per client, relay connections per address). By default the socket's remote address. Behind a
 * load balancer every client has the balancer's address, so `--trust-proxy ADDR` names proxies
 * whose `X-Forwarded-For` is believed: walking that header from the right, the first address not
 * itself a trusted proxy is the client. A fellow replica forwarding a request proves itself with
 * the replicas' shared token (`x-lnpr-replica`, read from the database): its `X-Forwarded-For`
 * (the client it saw) is believed whatever its address, and so is the Host it screened.
 */
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { timingSafeEqual } from 'node:crypto';

/** The header a replica forwarding a request sends its token in. */
export const REPLICA_TOKEN_HEADER = 'x-lnpr-replica';

/** How a server reads who a request comes from. */
export interface ClientAddresses {
  /** The client's address (`X-Forwarded-For` honoured from trusted proxies and fellow replicas only). */
  of(request: IncomingMessage): string;
  /** Whether a fellow replica forwarded the request (it has screened its Host already). */
  fromReplica(request: IncomingMessage): boolean;
}

/** The remote address of the socket, nothing else: one process without a proxy in front. */
export const SOCKET_ADDRESSES: ClientAddresses = {
  of: (request) => request.socket.remoteAddress ?? '',
  fromReplica: () => false,
};

/** Options of `clientAddresses`. */
export interface ClientAddressOptions {
  /** Addresses of proxies whose `X-Forwarded-For` is believed (`--trust-proxy`). */
  trustProxy?: readonly string[];
  /** The replicas' shared token; requests carrying it come from a fellow replica. */
  replicaToken?: () => string | undefined;
}

/** The client addresses under `--trust-proxy` and, for replicas, their shared token. */
export function clientAddresses({ trustProxy = [], replicaToken }: ClientAddressOptions): ClientAddresses {
  if (trustProxy.length === 0 && replicaToken === undefined) return SOCKET_ADDRESSES;
  const trusted = new Set(trustProxy.map(normalAddress));
  const fromReplica = (request: IncomingMessage): boolean => {
    const sent = request.headers[REPLICA_TOKEN_HEADER];
    const token = replicaToken?.();
    if (typeof sent !== 'string' || token === undefined || sent.length !== token.length) return false;
    return timingSafeEqual(Buffer.from(sent), Buffer.from(token));
  };
  return {
    fromReplica,
    of(request) {
      const socket = normalAddress(request.socket.remoteAddress ?? '');
      const replica = fromReplica(request);
      if (!replica && !trusted.has(socket)) return socket;
      const hops = forwardedFor(request.headers['x-forwarded-for']);
      // A replica sends exactly the client it saw, as the last hop.
      if (replica) return hops.at(-1) ?? socket;
      for (let i = hops.length - 1; i >= 0; i -= 1) {
        if (!trusted.has(hops[i]!) || i === 0) return hops[i]!;
      }
      return socket;
    },
  };
}

/** The addresses of an `X-Forwarded-For` header (several headers joined), leftmost first; junk dropped. */
function forwardedFor(header: string | string[] | undefined): string[] {
  if (header === undefined) return [];
  const joined = Array.isArray(header) ? header.join(',') : header;
  return joined
    .split(',')
    .map((part) => normalAddress(part.trim()))
    .filter((address) => isIP(address) !== 0);
}

/** An address as compared: IPv4-mapped IPv6 (`::ffff:1.2.3.4`) as IPv4, brackets and an IPv4 port dropped. */
export function normalAddress(address: string): string {
  let value = address;
  if (value.startsWith('[')) value = value.slice(1, value.indexOf(']') === -1 ? undefined : value.indexOf(']'));
  else if (/^\d+\.\d+\.\d+\.\d+:\d+$/.test(value)) value = value.slice(0, value.lastIndexOf(':'));
  if (value.toLowerCase().startsWith('::ffff:') && isIP(value.slice(7)) === 4) value = value.slice(7);
  return value.toLowerCase();
}

/**
 * A request's headers as the engine may see them: without the replicas' token, which must never
 * reach anything a client can read (the request journal keeps headers). The same object when it
 * carries none, so a request that came straight to this server pays one property check.
 */
export function withoutReplicaToken<T extends Record<string, unknown>>(headers: T): T {
  if (!(REPLICA_TOKEN_HEADER in headers)) return headers;
  const { [REPLICA_TOKEN_HEADER]: _token, ...rest } = headers;
  return rest as T;
}
