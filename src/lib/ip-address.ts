// IP addresses and CIDR ranges as numbers: parsing (IPv4 dotted quads, IPv6 in every textual
// form, with an embedded dotted quad or a zone), containment, and the IPv4 address an IPv6 one
// carries (IPv4-mapped, IPv4-compatible, NAT64, 6to4), so a check on one form holds for the others.
import { isIPv4, isIPv6 } from 'node:net';

export interface IpAddress {
  family: 4 | 6;
  /** 32 bits for IPv4, 128 for IPv6. */
  value: bigint;
}

export interface IpRange {
  family: 4 | 6;
  /** The range's first address (host bits cleared). */
  base: bigint;
  prefix: number;
}

const bits = (family: 4 | 6) => (family === 4 ? 32 : 128);

function parseV4(text: string): bigint | undefined {
  if (!isIPv4(text)) return undefined;
  return text.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

function parseV6(text: string): bigint | undefined {
  const plain = text.replace(/%.*$/, '');
  if (!isIPv6(plain)) return undefined;
  let groups = plain;
  // A trailing dotted quad (::ffff:127.0.0.1) is the last two groups.
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(plain);
  if (dotted) {
    const v4 = parseV4(dotted[2]!);
    if (v4 === undefined) return undefined;
    groups = `${dotted[1]}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head, tail] = groups.split('::') as [string, string | undefined];
  const left = head ? head.split(':') : [];
  const right = tail === undefined ? [] : tail ? tail.split(':') : [];
  const words = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  if (words.length !== 8) return undefined;
  return words.reduce((acc, w) => (acc << 16n) | BigInt(parseInt(w, 16)), 0n);
}

/** An IPv4 or IPv6 address (brackets and a zone allowed), or undefined when the text is neither. */
export function parseIp(text: string): IpAddress | undefined {
  const t = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const v4 = parseV4(t);
  if (v4 !== undefined) return { family: 4, value: v4 };
  const v6 = parseV6(t);
  return v6 === undefined ? undefined : { family: 6, value: v6 };
}

/** `10.0.0.0/8`, `fd00::/8`, or one address (a /32 or /128); host bits are cleared. */
export function parseCidr(text: string): IpRange | undefined {
  const slash = text.lastIndexOf('/');
  const addr = parseIp(slash < 0 ? text : text.slice(0, slash));
  if (!addr) return undefined;
  const max = bits(addr.family);
  const prefixText = slash < 0 ? String(max) : text.slice(slash + 1);
  if (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > max) return undefined;
  const prefix = Number(prefixText);
  const hostBits = BigInt(max - prefix);
  return { family: addr.family, base: (addr.value >> hostBits) << hostBits, prefix };
}

export function inRange(addr: IpAddress, range: IpRange): boolean {
  if (addr.family !== range.family) return false;
  const hostBits = BigInt(bits(range.family) - range.prefix);
  return addr.value >> hostBits === range.base >> hostBits;
}

const V6 = (text: string) => parseCidr(text)!;
const MAPPED = V6('::ffff:0:0/96');
/** IPv4-translated (RFC 2765, SIIT): `::ffff:0:a.b.c.d`. */
const TRANSLATED = V6('::ffff:0:0:0/96');
const COMPATIBLE = V6('::/96');
const NAT64 = V6('64:ff9b::/96');
const SIX_TO_FOUR = V6('2002::/16');

/**
 * The IPv4 address an IPv6 address stands for or carries: IPv4-mapped (`::ffff:a.b.c.d`),
 * IPv4-translated (`::ffff:0:a.b.c.d`), IPv4-compatible (`::a.b.c.d`, not `::` or `::1`), NAT64 (`64:ff9b::a.b.c.d`) and 6to4
 * (`2002:AABB:CCDD::`). Undefined for an IPv4 address or one carrying none.
 */
export function embeddedIpv4(addr: IpAddress): IpAddress | undefined {
  if (addr.family !== 6) return undefined;
  const low32 = addr.value & 0xffffffffn;
  if (inRange(addr, MAPPED) || inRange(addr, TRANSLATED) || inRange(addr, NAT64)) return { family: 4, value: low32 };
  if (inRange(addr, COMPATIBLE) && addr.value > 1n) return { family: 4, value: low32 };
  if (inRange(addr, SIX_TO_FOUR)) return { family: 4, value: (addr.value >> 80n) & 0xffffffffn };
  return undefined;
}

/** The address as text: dotted quad, or IPv6's full eight groups (for logs, not for display rules). */
export function formatIp(addr: IpAddress): string {
  if (addr.family === 4) return [24n, 16n, 8n, 0n].map((s) => String((addr.value >> s) & 0xffn)).join('.');
  return Array.from({ length: 8 }, (_, i) => ((addr.value >> BigInt(112 - 16 * i)) & 0xffffn).toString(16)).join(':');
}
