// The docs-pack host policy without a network: DOCO_PACK_HOSTS's syntax, which addresses the
// default policy refuses (every IPv6 form of a refused IPv4 address too), what a listed name, address
// or range opens (a name never opens a metadata address), and the registration-time check.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/environment.js';
import { parsePackHosts } from '../../src/config/pack-hosts.js';
import { judgeAddress, judgeBaseUrl, refusedAddressKind } from '../../src/ingest/packs/host-policy.js';
import { embeddedIpv4, formatIp, parseCidr, parseIp } from '../../src/lib/ip-address.js';

const ip = (text: string) => parseIp(text)!;
const hosts = (text: string) => {
  const parsed = parsePackHosts(text);
  expect(parsed.problems).toEqual([]);
  return parsed.hosts;
};

describe('IP addresses', () => {
  it('parses every textual form to one number, and finds the IPv4 address an IPv6 one carries', () => {
    expect(ip('::ffff:127.0.0.1')).toEqual(ip('::ffff:7f00:1'));
    expect(ip('[fd00:ec2::254]')).toEqual(ip('fd00:ec2:0:0:0:0:0:254'));
    expect(ip('fe80::1%eth0')).toEqual(ip('fe80::1'));
    expect(parseIp('127.1')).toBeUndefined();
    expect(parseIp('billing.internal')).toBeUndefined();
    for (const carrier of ['::ffff:10.1.2.3', '::ffff:0:10.1.2.3', '::10.1.2.3', '64:ff9b::10.1.2.3', '2002:a01:203::1'])
      expect(formatIp(embeddedIpv4(ip(carrier))!)).toBe('10.1.2.3');
    expect(embeddedIpv4(ip('::1'))).toBeUndefined();
    expect(embeddedIpv4(ip('2606:4700::1111'))).toBeUndefined();
    expect(parseCidr('10.9.8.7/8')).toEqual({ family: 4, base: ip('10.0.0.0').value, prefix: 8 });
    expect(parseCidr('10.0.0.0/33')).toBeUndefined();
  });
});

describe('DOCO_PACK_HOSTS', () => {
  it('takes names, *.domain, addresses and CIDR ranges, each with an optional port, separated by commas or spaces', () => {
    const list = hosts(
      'billing.internal, *.svc.cluster.local 10.0.0.0/8,127.0.0.1:8080,[fd00::1]:8443,fd00::/8,[fc00::/7]:80,Docs.Internal.:9000 10.0.0.0/8:443',
    );
    expect(list.map((e) => [e.kind, e.kind === 'name' ? `${e.subdomains ? '*.' : ''}${e.name}` : e.text, e.port])).toEqual([
      ['name', 'billing.internal', undefined],
      ['name', '*.svc.cluster.local', undefined],
      ['range', '10.0.0.0/8', undefined],
      ['range', '127.0.0.1:8080', 8080],
      ['range', '[fd00::1]:8443', 8443],
      ['range', 'fd00::/8', undefined],
      ['range', '[fc00::/7]:80', 80],
      ['name', 'docs.internal', 9000],
      ['range', '10.0.0.0/8:443', 443],
    ]);
    expect(parsePackHosts(undefined)).toEqual({ hosts: [], problems: [] });
  });

  it('names each bad entry, and a bad list stops the configuration from loading', () => {
    expect(parsePackHosts('*, 10.0.0.0/40, billing:99999, fd00::1:8080x, http://billing').problems).toEqual([
      expect.stringMatching(/^DOCO_PACK_HOSTS: \*: not a host name/),
      expect.stringMatching(/^DOCO_PACK_HOSTS: 10\.0\.0\.0\/40: not an IP address or CIDR range/),
      expect.stringMatching(/^DOCO_PACK_HOSTS: billing:99999: the port must be/),
      expect.stringMatching(/^DOCO_PACK_HOSTS: fd00::1:8080x: not a/),
      expect.stringMatching(/^DOCO_PACK_HOSTS: http:\/\/billing: /),
    ]);
    expect(() => loadConfig({ DOCO_PACK_HOSTS: '10.0.0.0/40' })).toThrow(ConfigError);
    expect(loadConfig({ DOCO_PACK_HOSTS: 'billing.internal,10.0.0.0/8' }).packHosts).toHaveLength(2);
    expect(loadConfig({}).packHosts).toEqual([]);
  });
});

describe('the default policy', () => {
  it('refuses loopback, private, link-local, unique-local, CGNAT, unspecified, multicast and metadata addresses in every form', () => {
    const refused: [string, string][] = [
      ['127.0.0.1', 'loopback'],
      ['127.0.0.2', 'loopback'],
      ['::1', 'loopback'],
      ['::ffff:127.0.0.2', 'loopback'],
      ['::127.0.0.2', 'loopback'],
      ['::ffff:0:127.0.0.1', 'loopback'],
      ['::ffff:0:169.254.169.254', 'cloud metadata'],
      ['64:ff9b::7f00:2', 'loopback'],
      ['2002:7f00:2::', 'loopback'],
      ['10.0.0.1', 'private'],
      ['172.16.0.1', 'private'],
      ['172.31.255.254', 'private'],
      ['192.168.1.1', 'private'],
      ['::ffff:192.168.1.1', 'private'],
      ['100.64.0.1', 'shared (CGNAT)'],
      ['169.254.1.1', 'link-local'],
      ['fe80::1', 'link-local'],
      ['fc00::1', 'unique-local'],
      ['fd12:3456::1', 'unique-local'],
      ['0.0.0.0', 'unspecified'],
      ['::', 'unspecified'],
      ['224.0.0.1', 'multicast'],
      ['ff02::1', 'multicast'],
      ['255.255.255.255', 'reserved'],
      ['169.254.169.254', 'cloud metadata'],
      ['::ffff:169.254.169.254', 'cloud metadata'],
      ['fd00:ec2::254', 'cloud metadata'],
      ['169.254.170.2', 'cloud metadata'],
      ['100.100.100.200', 'cloud metadata'],
      ['168.63.129.16', 'cloud metadata'],
    ];
    for (const [addr, kind] of refused) expect([addr, refusedAddressKind(ip(addr))]).toEqual([addr, kind]);
    for (const addr of ['93.184.216.34', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])
      expect([addr, refusedAddressKind(ip(addr))]).toEqual([addr, undefined]);
  });

  it('opens a refused address to a listed name (never a metadata address), or to a listed address or range, on the listed port', () => {
    const list = hosts('billing.internal:8080, *.corp.example, 10.0.0.0/8, fd00:1::/32, 169.254.169.254');
    const at = (hostname: string, port: number, addr: string) => judgeAddress(list, { hostname, port }, ip(addr)).allowed;
    expect(at('billing.internal', 8080, '192.168.1.5')).toBe(true);
    expect(at('billing.internal', 8081, '192.168.1.5')).toBe(false);
    expect(at('docs.corp.example', 80, '172.16.0.9')).toBe(true);
    expect(at('corp.example', 80, '172.16.0.9')).toBe(false);
    expect(at('anything.example', 443, '10.20.30.40')).toBe(true);
    expect(at('anything.example', 443, '::ffff:10.20.30.40')).toBe(true);
    expect(at('anything.example', 443, 'fd00:1::5')).toBe(true);
    expect(at('anything.example', 443, 'fd00:2::5')).toBe(false);
    expect(at('anything.example', 443, '127.0.0.1')).toBe(false);
    // A listed name resolving to a metadata address stays refused; the address listed opens it.
    expect(
      judgeAddress(hosts('metadata.google.internal'), { hostname: 'metadata.google.internal', port: 80 }, ip('169.254.169.254')),
    ).toEqual({
      allowed: false,
      address: '169.254.169.254',
      kind: 'cloud metadata',
    });
    expect(at('metadata.google.internal', 80, '169.254.169.254')).toBe(true);
    // A public address needs no entry.
    expect(judgeAddress([], { hostname: 'docs.example.com', port: 443 }, ip('93.184.216.34')).allowed).toBe(true);
  });

  it('judges at registration what needs no DNS: a literal address or localhost; any other name waits for the fetch', () => {
    expect(judgeBaseUrl([], 'http://127.0.0.2:8080')).toMatchObject({ allowed: false, kind: 'loopback' });
    expect(judgeBaseUrl([], 'http://0x7f.2:8080')).toMatchObject({ allowed: false, kind: 'loopback' });
    expect(judgeBaseUrl([], 'http://LOCALHOST.:3000')).toMatchObject({ allowed: false, kind: 'loopback' });
    expect(judgeBaseUrl([], 'http://[::ffff:a9fe:a9fe]')).toMatchObject({ allowed: false, kind: 'cloud metadata' });
    expect(judgeBaseUrl([], 'http://billing.internal:8080')).toEqual({ allowed: true });
    expect(judgeBaseUrl([], 'https://93.184.216.34')).toEqual({ allowed: true });
    expect(judgeBaseUrl(hosts('127.0.0.2:8080'), 'http://127.0.0.2:8080')).toEqual({ allowed: true });
    expect(judgeBaseUrl(hosts('127.0.0.2:8080'), 'http://127.0.0.2:8081').allowed).toBe(false);
    expect(judgeBaseUrl(hosts('localhost'), 'http://localhost:3000')).toEqual({ allowed: true });
  });
});
