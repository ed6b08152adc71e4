/**
 * The replicas bench's round-robin balancer (`bench/http-proxy.ts`): each request goes to the next
 * upstream in turn, whatever account it is about, so with N replicas about (N-1)/N of the requests
 * reach a replica that does not serve their account and are forwarded.
 * `tsx bench/round-robin-proxy.ts URL...`; prints `... listening on URL`.
 */
import { runProxy } from './http-proxy.js';

let next = 0;
runProxy('round-robin proxy', (_incoming, upstreams) => upstreams[next++ % upstreams.length]!);
