/** The Host check on its own: spellings of one host, wildcard listening, a name never accepted by accident. */
import { networkInterfaces } from 'node:os';
import { describe, expect, it } from 'vitest';
import { HostCheck, hostnameOf } from './host-check.js';

describe('hostnameOf', () => {
  it.each([
    ['LocalHost:8787', 'localhost'],
    ['localhost.', 'localhost'],
    ['127.0.0.1:80', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['[0:0:0:0:0:0:0:1]:8787', '[::1]'],
    ['::1', '[::1]'],
    ['[::1]', '[::1]'],
    ['Sandbox.Team.Example:443', 'sandbox.team.example'],
  ])('%s is %s', (host, name) => expect(hostnameOf(host)).toBe(name));

  it.each(['', 'evil@127.0.0.1', '127.0.0.1/x', 'a b', 'localhost:99999', '[::1', 'évil.test'])('%j is no host', (host) => expect(hostnameOf(host)).toBeUndefined());
});

describe('HostCheck', () => {
  it('accepts localhost, the listening addresses and the given names, in any spelling, on any port', () => {
    const check = new HostCheck(['sandbox.lan', '::1'], () => ['192.0.2.7']);
    for (const host of [undefined, 'localhost:1', 'LOCALHOST', '192.0.2.7:8787', 'sandbox.lan:9000', '[::1]:8787', '[0::1]']) {
      expect(check.accepts(host), String(host)).toBe(true);
    }
    for (const host of ['', 'evil.test', 'evil.test:8787', 'sandbox.lan.evil.test', '192.0.2.8', '127.0.0.1', 'localhost@evil.test']) {
      expect(check.accepts(host), host).toBe(false);
    }
  });

  it('listening on 0.0.0.0 or ::, accepts every address of the machine and nothing else', () => {
    const own = Object.values(networkInterfaces())
      .flatMap((entries) => entries ?? [])
      .filter((entry) => !entry.address.includes('%'))
      .map((entry) => (entry.family === 'IPv6' ? `[${entry.address}]:8787` : `${entry.address}:8787`));
    expect(own.length).toBeGreaterThan(0);
    for (const wildcard of ['0.0.0.0', '::']) {
      const check = new HostCheck([], () => [wildcard]);
      for (const host of own) expect(check.accepts(host), host).toBe(true);
      expect(check.accepts('evil.test:8787')).toBe(false);
      expect(check.accepts('203.0.113.9:8787')).toBe(false);
    }
  });

  it('reads the listening addresses again for an unknown Host, at most once a second', () => {
    let listening = ['192.0.2.1'];
    const check = new HostCheck([], () => listening);
    expect(check.accepts('192.0.2.1')).toBe(true);
    listening = ['192.0.2.2'];
    // Read less than a second ago: not read again yet.
    expect(check.accepts('192.0.2.2')).toBe(false);
  });
});
