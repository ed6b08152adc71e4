/** The address policy's one decision, on what URLs show and on what names resolve to. */
import { describe, expect, it } from 'vitest';
import { addressRefusal, allowedHostOf, attemptGuard, isLoopbackHost, normalHost, refusalMessage } from './address-policy.js';
import type { WebhookAddressPolicy } from '../settings.js';

/** A sandbox beyond loopback with no exception. */
const STRICT: WebhookAddressPolicy = { allowedOrigins: [], allowedHosts: [] };

const refusedAt = (url: string, policy: WebhookAddressPolicy = STRICT) => {
  const guard = attemptGuard(url, policy);
  return 'refused' in guard ? refusalMessage(guard.refused) : undefined;
};

describe('attemptGuard: what a URL shows', () => {
  it.each([
    ['http://127.0.0.1:8080/x', '127.0.0.1 (loopback)'],
    ['http://127.9.9.9/', '127.9.9.9 (loopback)'],
    ['http://[::1]:22/', '::1 (loopback)'],
    ['http://localhost:3000/', 'localhost (loopback)'],
    ['http://hooks.localhost./', 'hooks.localhost (loopback)'],
    ['http://10.0.0.5/', '10.0.0.5 (private)'],
    ['http://172.16.0.1/', '172.16.0.1 (private)'],
    ['http://172.31.255.255/', '172.31.255.255 (private)'],
    ['http://192.168.1.1/', '192.168.1.1 (private)'],
    ['http://[fc00::1]/', 'fc00::1 (private)'],
    ['http://[fd12:3456::1]/', 'fd12:3456::1 (private)'],
    ['http://169.254.1.1/', '169.254.1.1 (link-local)'],
    ['http://[fe80::1]/', 'fe80::1 (link-local)'],
    ['http://100.64.0.1/', '100.64.0.1 (carrier-grade NAT)'],
    ['http://100.127.255.254/', '100.127.255.254 (carrier-grade NAT)'],
    ['http://0.0.0.0/', '0.0.0.0 (unspecified)'],
    ['http://[::]/', ':: (unspecified)'],
    ['http://224.0.0.1/', '224.0.0.1 (multicast)'],
    ['http://[ff02::1]/', 'ff02::1 (multicast)'],
    ['http://255.255.255.255/', '255.255.255.255 (reserved)'],
    ['http://169.254.169.254/latest/meta-data/', '169.254.169.254 (metadata)'],
    ['http://[fd00:ec2::254]/', 'fd00:ec2::254 (metadata)'],
    ['http://metadata.google.internal/computeMetadata/v1/', 'metadata.google.internal (metadata)'],
    ['http://METADATA.GOOGLE.INTERNAL./', 'metadata.google.internal (metadata)'],
  ])('%s is refused: %s', (url, why) => {
    expect(refusedAt(url)).toBe(`address not allowed: ${why}`);
  });

  it.each([
    // IPv4 written the ways URL parsing normalizes: decimal, hex, octal, short forms.
    ['http://2130706433/', '127.0.0.1 (loopback)'],
    ['http://0x7f000001/', '127.0.0.1 (loopback)'],
    ['http://0x7f.1/', '127.0.0.1 (loopback)'],
    ['http://017700000001/', '127.0.0.1 (loopback)'],
    ['http://127.1/', '127.0.0.1 (loopback)'],
    ['http://012.0.0.5/', '10.0.0.5 (private)'],
    ['http://0/', '0.0.0.0 (unspecified)'],
    // IPv6 carrying IPv4: mapped, NAT64, compatible.
    ['http://[::ffff:127.0.0.1]/', '127.0.0.1 (loopback)'],
    ['http://[::ffff:a00:5]/', '10.0.0.5 (private)'],
    ['http://[::ffff:169.254.169.254]/', '169.254.169.254 (metadata)'],
    ['http://[64:ff9b::10.0.0.5]/', '10.0.0.5 (private)'],
    ['http://[::7f00:1]/', '127.0.0.1 (loopback)'],
  ])('%s, another form of a refused address, is refused: %s', (url, why) => {
    expect(refusedAt(url)).toBe(`address not allowed: ${why}`);
  });

  it('public addresses go unchecked; a name goes with the check of what it resolves to', () => {
    for (const url of ['http://93.184.216.34/x', 'https://172.32.0.1/', 'http://100.128.0.1/', 'http://[2606:4700::1111]/', 'http://[::ffff:8.8.8.8]/']) {
      expect(attemptGuard(url, STRICT), url).toEqual({});
    }
    const guard = attemptGuard('https://hooks.example.com/x', STRICT);
    expect('checkAddress' in guard && typeof guard.checkAddress).toBe('function');
  });

  it('an open policy (a sandbox on loopback only) takes any http(s) URL', () => {
    for (const url of ['http://127.0.0.1:22/', 'http://169.254.169.254/', 'http://localhost/', 'https://example.com/']) expect(attemptGuard(url, 'any')).toEqual({});
  });
});

describe('the operator\'s exceptions', () => {
  const policy: WebhookAddressPolicy = { allowedOrigins: ['http://127.0.0.1:4000'], allowedHosts: ['10.0.0.5', 'hooks.internal', '::1'] };

  it('an exact origin: scheme, host and port', () => {
    expect(refusedAt('http://127.0.0.1:4000/any/path?q=1', policy)).toBeUndefined();
    expect(refusedAt('http://2130706433:4000/', policy)).toBeUndefined(); // the same origin, written otherwise
    expect(refusedAt('http://127.0.0.1:4001/', policy)).toBe('address not allowed: 127.0.0.1 (loopback)');
    expect(refusedAt('http://127.0.0.1:22/', policy)).toBe('address not allowed: 127.0.0.1 (loopback)');
    expect(refusedAt('https://127.0.0.1:4000/', policy)).toBe('address not allowed: 127.0.0.1 (loopback)');
    expect(refusedAt('http://localhost:4000/', policy)).toBe('address not allowed: localhost (loopback)');
  });

  it('an allowed host, on any port; an allowed address also when a name resolves to it', () => {
    expect(refusedAt('http://10.0.0.5:9999/', policy)).toBeUndefined();
    expect(refusedAt('http://[::1]:1/', policy)).toBeUndefined();
    expect(attemptGuard('http://hooks.internal:81/', policy)).toEqual({}); // whatever it resolves to
    expect(addressRefusal('10.0.0.5', policy)).toBeUndefined();
    expect(addressRefusal('10.0.0.6', policy)).toEqual({ address: '10.0.0.6', kind: 'private' });
    expect(addressRefusal('::ffff:10.0.0.5', policy)).toBeUndefined();
  });

  it('`*` allows everything', () => {
    expect(attemptGuard('http://169.254.169.254/', { allowedOrigins: [], allowedHosts: ['*'] })).toEqual({});
  });
});

describe('addressRefusal: what a resolver answered', () => {
  it.each([
    ['127.0.0.2', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['fe80::1%eth0', 'link-local'],
    ['192.168.0.10', 'private'],
    ['169.254.169.254', 'metadata'],
  ])('%s: %s', (address, kind) => {
    expect(addressRefusal(address, STRICT)?.kind).toBe(kind);
  });

  it('public ones pass', () => {
    for (const address of ['93.184.216.34', '2606:4700:4700::1111', '::ffff:8.8.8.8']) expect(addressRefusal(address, STRICT)).toBeUndefined();
  });
});

describe('hosts as the operator writes them', () => {
  it.each([
    ['hooks.Example.com.', 'hooks.example.com'],
    ['10.0.0.5', '10.0.0.5'],
    ['2130706433', '127.0.0.1'],
    ['::1', '::1'],
    ['[0:0::1]', '::1'],
    ['::FFFF:10.0.0.5', '10.0.0.5'],
    ['*', '*'],
  ])('%s is kept as %s', (value, kept) => {
    expect(allowedHostOf(value)).toBe(kept);
  });

  it.each(['', ' ', 'host:8080', 'http://host', 'host/path', 'user@host'])('%j is no host', (value) => {
    expect(allowedHostOf(value)).toBeUndefined();
  });

  it('normalHost writes IPv6 as URLs do, and IPv4-mapped ones as IPv4', () => {
    expect(normalHost('[2001:DB8:0:0:0:0:0:1]')).toBe('2001:db8::1');
    expect(normalHost('::ffff:7f00:1')).toBe('127.0.0.1');
  });

  it('the listening host: loopback or beyond', () => {
    for (const host of ['127.0.0.1', 'localhost', '::1', '[::1]', '127.0.0.2']) expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ['0.0.0.0', '::', '192.168.1.5', 'sandbox.example.com']) expect(isLoopbackHost(host), host).toBe(false);
  });
});
