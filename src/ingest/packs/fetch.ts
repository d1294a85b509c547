// Fetches a service's docs pack from GET {base_url}/api/v1/system/docs/pack, only where the host
// policy allows (host-policy.ts): the name is resolved, every address is judged, and the
// connection goes to the address judged, so a DNS answer that changes in between (rebinding)
// reaches nothing unchecked. Redirects are not followed. A timeout and a size cap bound it, and
// the pack is checked against the format. Every failure is a kind and a sentence that never
// quotes the response: what cannot be reached, is refused or is too slow is one sentence alike,
// so the registrations' last_error maps no network; the specific reason is `detail`, for the log.
import { lookup } from 'node:dns/promises';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import * as v from 'valibot';
import type { PackHosts } from '../../config/pack-hosts.js';
import { parseIp } from '../../lib/ip-address.js';
import { findHostileValue } from '../../lib/hostile-input.js';
import { countJsonValues } from '../../lib/json-values.js';
import { DocsPackSchema, PACK_LIMITS, type DocsPack } from './format.js';
import { judgeAddress, targetOf } from './host-policy.js';

export const PACK_ROUTE = '/api/v1/system/docs/pack';
export const DEFAULT_FETCH_TIMEOUT_MS = 15_000;

export type PackFetchFailure = 'unreachable' | 'status' | 'too_large' | 'not_json' | 'invalid' | 'wrong_code';

export class PackFetchError extends Error {
  override name = 'PackFetchError';
  /**
   * @param message for the registration's last_error: never a byte of the response
   * @param detail the specific reason, for the server's log only
   */
  constructor(
    readonly kind: PackFetchFailure,
    message: string,
    readonly detail: string = message,
  ) {
    super(message);
  }
}

export interface FetchPackOptions {
  timeoutMs?: number;
}

export const packUrl = (baseUrl: string) => `${baseUrl.replace(/\/+$/, '')}${PACK_ROUTE}`;

/** The one sentence for a pack that was refused by policy, could not be reached, or did not answer in time. */
const unreachable = (url: string, detail: string) =>
  new PackFetchError(
    'unreachable',
    `could not fetch ${url} (unreachable, too slow, or refused by the host policy: the server's log says which)`,
    detail,
  );

const aborted = (signal: AbortSignal) =>
  new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));

/** The addresses to connect to, in the resolver's order: the URL's literal one, or every one its name resolves to, each judged. */
async function allowedAddresses(hosts: PackHosts, url: URL, signal: AbortSignal): Promise<string[]> {
  const target = targetOf(url);
  const literal = parseIp(target.hostname);
  const found = literal
    ? [{ address: target.hostname }]
    : await Promise.race([lookup(target.hostname, { all: true, verbatim: true }), aborted(signal)]);
  if (!found.length) throw new Error(`${target.hostname} resolved to no address`);
  for (const { address } of found) {
    const verdict = judgeAddress(hosts, target, parseIp(address)!);
    // One refused address refuses the host: which one a connection would take is not ours to pick.
    if (!verdict.allowed)
      throw new Error(
        `refused by the host policy: ${target.hostname} is at ${verdict.address}, a ${verdict.kind} address, and DOCO_PACK_HOSTS lists no entry for it (port ${target.port})`,
      );
  }
  return found.map((f) => f.address);
}

/** Errors that say nothing listens at one address, so the name's next address is tried. */
const NEXT_ADDRESS = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'EAFNOSUPPORT']);

/** The first answer from the checked addresses, tried in order (a name's IPv6 address may have no listener where its IPv4 one does). */
async function getFromAny(url: URL, addresses: string[], signal: AbortSignal): Promise<IncomingMessage> {
  for (let i = 0; ; i++) {
    try {
      return await get(url, addresses[i]!, signal);
    } catch (err) {
      if (i === addresses.length - 1 || !NEXT_ADDRESS.has((err as NodeJS.ErrnoException).code ?? '')) throw err;
    }
  }
}

/** One GET to `address`, with the URL's host in the Host header and, for https, as the TLS server name. */
function get(url: URL, address: string, signal: AbortSignal): Promise<IncomingMessage> {
  const secure = url.protocol === 'https:';
  const target = targetOf(url);
  return new Promise((resolve, reject) => {
    const req = (secure ? https : http).request(
      {
        host: address,
        port: target.port,
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        headers: { host: url.host, accept: 'application/json', 'user-agent': 'doco-docs-pack' },
        agent: false,
        signal,
        ...(secure && !isIP(target.hostname) ? { servername: target.hostname } : {}),
      },
      resolve,
    );
    req.on('error', reject);
    req.end();
  });
}

async function readCapped(res: IncomingMessage, url: string): Promise<string> {
  const tooLarge = () =>
    new PackFetchError('too_large', `${url} sent more than ${PACK_LIMITS.packBytes} bytes; a pack may hold at most that`);
  if (Number(res.headers['content-length'] ?? '0') > PACK_LIMITS.packBytes) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res as AsyncIterable<Buffer>) {
    size += chunk.byteLength;
    if (size > PACK_LIMITS.packBytes) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The response's text, when policy allows the host and it answers 2xx within the time. */
async function fetchText(hosts: PackHosts, url: string, timeoutMs: number): Promise<string> {
  const u = new URL(url);
  const signal = AbortSignal.timeout(timeoutMs);
  let res: IncomingMessage;
  try {
    res = await getFromAny(u, await allowedAddresses(hosts, u, signal), signal);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw unreachable(url, signal.aborted ? `no answer within ${timeoutMs} ms` : (e.code ?? e.message));
  }
  try {
    const status = res.statusCode ?? 0;
    if (status < 200 || status > 299) {
      // The status alone: the reason phrase and the body are the target's text, and a redirect's Location too.
      const redirect = status >= 300 && status < 400 ? ': redirects are not followed, register the base URL the pack is served under' : '';
      throw new PackFetchError('status', `${url} answered HTTP ${status}${redirect}`);
    }
    return await readCapped(res, url);
  } catch (err) {
    if (err instanceof PackFetchError) throw err;
    throw unreachable(url, signal.aborted ? `the answer did not finish within ${timeoutMs} ms` : (err as Error).message);
  } finally {
    res.destroy();
  }
}

/** The pack's text as the service serves it at `baseUrl` (not yet read as a pack), and where from. */
export async function fetchPackText(
  hosts: PackHosts,
  baseUrl: string,
  opts: FetchPackOptions = {},
): Promise<{ url: string; text: string }> {
  const url = packUrl(baseUrl);
  return { url, text: await fetchText(hosts, url, opts.timeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS) };
}

/** The pack in the text fetched from `url`, checked against the format and against the code it registered. */
export function readDocsPack(url: string, code: string, text: string): DocsPack {
  // Counted before the parse: millions of tiny values held the event loop for seconds in
  // JSON.parse alone, on every pull (a hostile review).
  if (countJsonValues(text, PACK_LIMITS.values) > PACK_LIMITS.values)
    throw new PackFetchError('invalid', `${url} sent an invalid pack: it holds more than ${PACK_LIMITS.values} JSON values`);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    // JSON.parse's message quotes the text: not a word of it goes anywhere.
    throw new PackFetchError('not_json', `${url} did not send JSON`);
  }
  // What every edge checks first: a pack nested 200,000 levels deep overflowed the stack in the
  // hash over it, on every pull, with no last_error (a hostile review).
  const hostile = findHostileValue(raw);
  if (hostile)
    throw new PackFetchError('invalid', `${url} sent an invalid pack: ${hostile.path ? `${hostile.path} ` : ''}${hostile.message}`);
  const parsed = v.safeParse(DocsPackSchema, raw);
  if (!parsed.success) {
    // Only the place and the schema's own message (format.ts gives every check one that quotes nothing).
    const issue = parsed.issues[0];
    const where = issue ? v.getDotPath(issue) : null;
    throw new PackFetchError(
      'invalid',
      `${url} sent an invalid pack: ${where ? `${where} ` : ''}${issue?.message ?? 'does not match the pack format'}`,
    );
  }
  if (parsed.output.code !== code)
    throw new PackFetchError('wrong_code', `${url} sent the pack of another code than "${code}", the one it was registered as`);
  return parsed.output;
}

/** The pack the service serves, checked against the format and against the code it registered. */
export async function fetchDocsPack(hosts: PackHosts, baseUrl: string, code: string, opts: FetchPackOptions = {}): Promise<DocsPack> {
  const { url, text } = await fetchPackText(hosts, baseUrl, opts);
  return readDocsPack(url, code, text);
}
