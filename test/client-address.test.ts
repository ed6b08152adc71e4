/**
 * The one "client address" the per-address limits count (live streams per client, relay
 * connections per address): the socket's address unless it is a `--trust-proxy` address, whose
 * `X-Forwarded-For` is believed (walking from the right past trusted proxies), or a fellow
 * replica proving itself with the shared token. A client cannot pick its own address by sending
 * the header itself.
 */
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { clientAddresses, REPLICA_TOKEN_HEADER, SOCKET_ADDRESSES } from '../src/http/client-address.js';

const request = (remoteAddress: string, headers: Record<string, string> = {}) => ({ socket: { remoteAddress }, headers }) as unknown as IncomingMessage;

describe('client addresses', () => {
  it('is the socket address without --trust-proxy, whatever X-Forwarded-For says', () => {
    expect(SOCKET_ADDRESSES.of(request('10.0.0.9', { 'x-forwarded-for': '1.2.3.4' }))).toBe('10.0.0.9');
    expect(clientAddresses({}).of(request('10.0.0.9', { 'x-forwarded-for': '1.2.3.4' }))).toBe('10.0.0.9');
  });

  it('believes X-Forwarded-For from a trusted proxy only, walking past trusted hops', () => {
    const addresses = clientAddresses({ trustProxy: ['10.0.0.1', '10.0.0.2'] });
    expect(addresses.of(request('10.0.0.1', { 'x-forwarded-for': '203.0.113.7' }))).toBe('203.0.113.7');
    expect(addresses.of(request('::ffff:10.0.0.1', { 'x-forwarded-for': '198.51.100.1, 203.0.113.7, 10.0.0.2' }))).toBe('203.0.113.7');
    expect(addresses.of(request('10.0.0.1', { 'x-forwarded-for': 'junk' }))).toBe('10.0.0.1');
    // Not a trusted proxy: its header is the client's own say, not believed.
    expect(addresses.of(request('10.0.0.3', { 'x-forwarded-for': '203.0.113.7' }))).toBe('10.0.0.3');
  });

  it("believes a fellow replica's X-Forwarded-For only with the shared token", () => {
    const addresses = clientAddresses({ replicaToken: () => 'secret-token' });
    const forwarded = request('127.0.0.1', { 'x-forwarded-for': '203.0.113.7', [REPLICA_TOKEN_HEADER]: 'secret-token' });
    expect([addresses.of(forwarded), addresses.fromReplica(forwarded)]).toEqual(['203.0.113.7', true]);
    const forged = request('127.0.0.1', { 'x-forwarded-for': '203.0.113.7', [REPLICA_TOKEN_HEADER]: 'guessed-token' });
    expect([addresses.of(forged), addresses.fromReplica(forged)]).toEqual(['127.0.0.1', false]);
  });
});
