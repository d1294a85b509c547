// DOCO_PACK_HOSTS: the hosts and ranges an operator opens to docs-pack fetches, past the default
// policy that refuses loopback, private, link-local and metadata addresses (docs/docs-pack.md,
// "Where Doco fetches from"). A comma- or space-separated list; each entry is a host name
// (`billing.internal`), every name under a domain (`*.svc.cluster.local`), an IP address
// (`10.1.2.3`, `fd00::1`) or a CIDR range (`10.0.0.0/8`, `fd00::/8`), with an optional port
// (`billing.internal:8080`, `127.0.0.1:8080`, `[fd00::1]:8080`, `[fd00::/8]:8080`).
import { parseCidr, parseIp, type IpRange } from '../lib/ip-address.js';

export type PackHostEntry =
  /** A host name as the base URL names it; `subdomains`: `*.domain`, any name under the domain (not the domain itself). */
  | { kind: 'name'; name: string; subdomains: boolean; port: number | undefined; text: string }
  /** Addresses the name resolves to (or a URL's literal address). */
  | { kind: 'range'; range: IpRange; port: number | undefined; text: string };

/** The operator's list; empty: the default policy alone. */
export type PackHosts = readonly PackHostEntry[];

const LABEL = /^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?$/;
const isHostName = (name: string) => name.length <= 253 && name.split('.').every((l) => LABEL.test(l));

/** Splits `host:port`, `[v6]:port`, `[v6/nn]:port`; a bare IPv6 address or range takes no port. */
function splitPort(entry: string): { host: string; port: string | undefined } | undefined {
  if (entry.startsWith('[')) {
    const close = entry.indexOf(']');
    if (close < 0) return undefined;
    const rest = entry.slice(close + 1);
    if (rest && !rest.startsWith(':')) return undefined;
    return { host: entry.slice(1, close), port: rest ? rest.slice(1) : undefined };
  }
  const colons = entry.split(':').length - 1;
  if (colons <= 1) {
    const [host, port] = entry.split(':') as [string, string | undefined];
    return { host, port };
  }
  return { host: entry, port: undefined };
}

function parseEntry(text: string): PackHostEntry | string {
  const split = splitPort(text);
  if (!split) return `${text}: an IPv6 address with a port goes in brackets, such as [fd00::1]:8080`;
  let port: number | undefined;
  if (split.port !== undefined) {
    port = /^\d{1,5}$/.test(split.port) ? Number(split.port) : NaN;
    if (!(port >= 1 && port <= 65535)) return `${text}: the port must be a number from 1 to 65535`;
  }
  const host = split.host.toLowerCase().replace(/\.$/, '');
  if (parseIp(host) || host.includes('/')) {
    const range = parseCidr(host);
    return range ? { kind: 'range', range, port, text } : `${text}: not an IP address or CIDR range (such as 10.0.0.0/8 or fd00::/8)`;
  }
  const subdomains = host.startsWith('*.');
  const name = subdomains ? host.slice(2) : host;
  if (!isHostName(name) || /^[\d.]+$/.test(name))
    return `${text}: not a host name, *.domain, IP address or CIDR range (such as billing.internal, *.svc.cluster.local, 10.0.0.0/8)`;
  return { kind: 'name', name, subdomains, port, text };
}

/** The entries of DOCO_PACK_HOSTS, or the problems with it (one sentence per bad entry). */
export function parsePackHosts(value: string | undefined): { hosts: PackHosts; problems: string[] } {
  const hosts: PackHostEntry[] = [];
  const problems: string[] = [];
  for (const text of (value ?? '').split(/[\s,]+/).filter(Boolean)) {
    const entry = parseEntry(text);
    if (typeof entry === 'string') problems.push(`DOCO_PACK_HOSTS: ${entry}`);
    else hosts.push(entry);
  }
  return { hosts, problems };
}
