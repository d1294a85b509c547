// The Host header, checked: a page on another site that rebinds its own DNS name to this
// machine's address (DNS rebinding) reaches our port with its own name as the Host, so a request
// whose Host is not one we answer to is refused before any route runs. We answer to the public
// URL when one is configured, the address we listen on, and — listening on loopback or on every
// interface — the loopback names and bare IP addresses (a rebinding attack needs a name).
import { isIP } from 'node:net';
import type { MiddlewareHandler } from 'hono';
import { AppError } from '../errors.js';

export interface HostPolicy {
  /** The port we listen on: a Host without one means the scheme's default, which must match it. */
  port: number;
  /** The address we listen on (127.0.0.1, ::, 0.0.0.0, a name). */
  listenHost: string;
  /** Host[:port] values always accepted: the configured public URL's. */
  publicHosts: string[];
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);
const WILDCARD = new Set(['0.0.0.0', '::', '[::]']);

/** `host[:port]` split, lowercased, IPv6 kept in brackets. */
function splitHost(value: string): { name: string; port: string | undefined } | undefined {
  const m = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/i.exec(value.trim());
  return m ? { name: m[1]!.toLowerCase(), port: m[2] } : undefined;
}

export function hostAllowed(hostHeader: string | undefined, policy: HostPolicy): boolean {
  if (!hostHeader) return false;
  const lowered = hostHeader.trim().toLowerCase();
  if (policy.publicHosts.some((h) => h.toLowerCase() === lowered)) return true;
  const host = splitHost(hostHeader);
  if (!host || (host.port ?? '80') !== String(policy.port)) return false;
  const listen = policy.listenHost.toLowerCase();
  const bare = host.name.replace(/^\[|\]$/g, '');
  if (host.name === listen || bare === listen) return true;
  const loopbackListen = LOOPBACK_NAMES.has(listen) || listen === '::1' || listen.startsWith('127.');
  if ((loopbackListen || WILDCARD.has(listen)) && LOOPBACK_NAMES.has(host.name)) return true;
  return WILDCARD.has(listen) && isIP(bare) !== 0;
}

export function checkHost(policy: HostPolicy): MiddlewareHandler {
  return async (c, next) => {
    if (!hostAllowed(c.req.header('host'), policy)) {
      throw new AppError(
        'misdirected_request',
        'this server does not answer to that Host: reach it by its address, or set DOCO_PUBLIC_URL to the URL it is published at',
      );
    }
    await next();
  };
}
