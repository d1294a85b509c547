// The Host header check that stops DNS rebinding: a page on evil.example that rebinds its name to
// this machine reaches our port with Host: evil.example:8787, and is refused; the names and
// addresses we are reached by pass.
import { describe, expect, it } from 'vitest';
import { hostAllowed, type HostPolicy } from '../../src/http/host-check.js';

const loopback: HostPolicy = { port: 8787, listenHost: '127.0.0.1', publicHosts: [] };
const everywhere: HostPolicy = { port: 8787, listenHost: '0.0.0.0', publicHosts: ['doco.example.com'] };

describe('hostAllowed', () => {
  it('on loopback: the loopback names at our port, nothing else', () => {
    for (const h of ['127.0.0.1:8787', 'localhost:8787', 'LOCALHOST:8787', '[::1]:8787']) expect(hostAllowed(h, loopback), h).toBe(true);
    for (const h of ['evil.example:8787', 'evil.example', '127.0.0.1:9999', '127.0.0.1', '10.0.0.5:8787', '', 'a:b:c', '127.0.0.1:8787/x'])
      expect(hostAllowed(h, loopback), h).toBe(false);
    expect(hostAllowed(undefined, loopback)).toBe(false);
  });

  it('on every interface: the public URL, loopback and bare addresses, but no other name', () => {
    for (const h of ['doco.example.com', '10.0.0.5:8787', '192.168.1.20:8787', '[fd00::1]:8787', 'localhost:8787'])
      expect(hostAllowed(h, everywhere), h).toBe(true);
    for (const h of ['evil.example:8787', 'doco.example.com.evil.example', '10.0.0.5:80', 'rebind.attacker.test:8787'])
      expect(hostAllowed(h, everywhere), h).toBe(false);
  });

  it('on a named address: that name at our port', () => {
    const named: HostPolicy = { port: 80, listenHost: 'doco.internal', publicHosts: [] };
    expect(hostAllowed('doco.internal', named)).toBe(true);
    expect(hostAllowed('doco.internal:80', named)).toBe(true);
    expect(hostAllowed('other.internal', named)).toBe(false);
  });
});
