// Where a docs pack may be fetched from (docs/docs-pack.md, "Where Doco fetches from"): any
// public address; loopback, private, link-local, unique-local, CGNAT, unspecified, multicast and
// reserved addresses (and the IPv6 forms that carry one) only when DOCO_PACK_HOSTS lists the
// host's name or a range holding the address; cloud metadata addresses only when a range does.
// A base URL's name alone is judged at registration; its addresses when it is fetched.
import type { PackHostEntry, PackHosts } from '../../config/pack-hosts.js';
import { embeddedIpv4, formatIp, inRange, parseCidr, parseIp, type IpAddress, type IpRange } from '../../lib/ip-address.js';

const ranges = (list: [string, string][]): [IpRange, string][] => list.map(([cidr, what]) => [parseCidr(cidr)!, what]);

/** Not public: refused unless listed. */
const REFUSED = ranges([
  ['0.0.0.0/8', 'unspecified'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'shared (CGNAT)'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'IETF protocol'],
  ['192.0.2.0/24', 'documentation'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'],
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['64:ff9b:1::/48', 'local NAT64'],
  ['100::/64', 'discard'],
  ['2001:db8::/32', 'documentation'],
  ['fc00::/7', 'unique-local'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'site-local'],
  ['ff00::/8', 'multicast'],
]);

/**
 * Instance metadata and credential endpoints: AWS, GCP, Azure, OpenStack and others
 * (169.254.169.254, AWS IPv6 fd00:ec2::254), AWS ECS task credentials (169.254.170.2), Alibaba
 * (100.100.100.200), Oracle (192.0.0.192), Azure's WireServer (168.63.129.16, a public address).
 */
const METADATA = ['169.254.169.254', '169.254.170.2', '100.100.100.200', '192.0.0.192', '168.63.129.16', 'fd00:ec2::254'].map((a) =>
  parseIp(a)!,
);

const same = (a: IpAddress, b: IpAddress) => a.family === b.family && a.value === b.value;

/** What the address is when the default policy refuses it ("loopback", "cloud metadata"…), else undefined. */
export function refusedAddressKind(addr: IpAddress): string | undefined {
  const forms = [addr, embeddedIpv4(addr)].filter((a): a is IpAddress => !!a);
  if (forms.some((f) => METADATA.some((m) => same(f, m)))) return 'cloud metadata';
  for (const f of forms) for (const [range, what] of REFUSED) if (inRange(f, range)) return what;
  return undefined;
}

/** The host and port a URL connects to: the name lowercased, without brackets or a trailing dot. */
export interface Target {
  hostname: string;
  port: number;
}

export function targetOf(url: URL): Target {
  const hostname = url.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  return { hostname, port: url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80 };
}

/** Refused: the address judged (as text) and what kind of address it is ("loopback", "cloud metadata"…). */
export type Verdict = { allowed: true } | { allowed: false; address: string; kind: string };

const portMatches = (entry: PackHostEntry, target: Target) => entry.port === undefined || entry.port === target.port;
const nameMatches = (entry: PackHostEntry & { kind: 'name' }, hostname: string) =>
  entry.subdomains ? hostname.endsWith(`.${entry.name}`) : hostname === entry.name;

/** May the fetch of `target` connect to `addr` (one of the addresses its name resolved to, or its literal address)? */
export function judgeAddress(hosts: PackHosts, target: Target, addr: IpAddress): Verdict {
  const kind = refusedAddressKind(addr);
  if (!kind) return { allowed: true };
  const forms = [addr, embeddedIpv4(addr)].filter((a): a is IpAddress => !!a);
  for (const entry of hosts) {
    if (!portMatches(entry, target)) continue;
    if (entry.kind === 'range' && forms.some((f) => inRange(f, entry.range))) return { allowed: true };
    // A listed name opens the private addresses it resolves to, never a metadata address.
    if (entry.kind === 'name' && kind !== 'cloud metadata' && nameMatches(entry, target.hostname)) return { allowed: true };
  }
  return { allowed: false, address: formatIp(addr), kind };
}

/** The loopback address RFC 6761 reserves `localhost` and `*.localhost` for. */
const LOCALHOST = parseIp('127.0.0.1')!;

/**
 * The registration-time check: what policy can say of a base URL without DNS. A literal address
 * (or `localhost`) is judged now; any other name is judged by its addresses at each fetch.
 */
export function judgeBaseUrl(hosts: PackHosts, baseUrl: string): Verdict {
  const target = targetOf(new URL(baseUrl));
  const literal = parseIp(target.hostname);
  if (literal) return judgeAddress(hosts, target, literal);
  if (target.hostname === 'localhost' || target.hostname.endsWith('.localhost')) return judgeAddress(hosts, target, LOCALHOST);
  return { allowed: true };
}
