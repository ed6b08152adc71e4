/**
 * The replicas bench's key-hashing balancer (`bench/http-proxy.ts`): each request goes to the
 * upstream its `Authorization` header hashes to (`bench/key-hash.ts`), as a balancer with sticky
 * routing on the API key does. An account owned by the replica its key hashes to then never has
 * a request forwarded.
 * `tsx bench/key-hash-proxy.ts URL...`; prints `... listening on URL`.
 */
import { runProxy } from './http-proxy.js';
import { upstreamIndexOf } from './key-hash.js';

runProxy('key-hash proxy', (incoming, upstreams) => upstreams[upstreamIndexOf(incoming.headers.authorization ?? '', upstreams.length)]!);
