/**
 * Which upstream the bench's key-hashing balancer (`bench/key-hash-proxy.ts`) sends a request to:
 * its `Authorization` header hashed (32-bit FNV-1a of the UTF-16 code units) modulo the number of
 * upstreams. Shared with the bench, which makes each account on the replica its key hashes to.
 */
export function upstreamIndexOf(authorization: string, upstreams: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < authorization.length; i++) hash = Math.imul(hash ^ authorization.charCodeAt(i), 0x01000193) >>> 0;
  return hash % upstreams;
}
