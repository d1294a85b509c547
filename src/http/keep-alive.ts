// How long `doco serve` keeps an idle HTTP connection open for its next request: longer than the
// clients and proxies that reuse connections keep theirs, so that a client never sends a request
// on a connection the server is closing at that moment (docs/production.md, "What the scale suite
// proves").
import type { Server } from 'node:http';
import type { ServerType } from '@hono/node-server';

/**
 * Node's default is 5 s. A client that reads the `Keep-Alive: timeout=5` hint drops the socket a
 * little earlier (Node's fetch, undici: 2 s earlier), one that gets no hint after 4 s (undici) or
 * 5 s (Node's http.Agent), and load balancers keep theirs 60 s (AWS ALB, nginx's upstream
 * keepalive_timeout): with 5 s, a request sent as the server's timer fires, or while either
 * side's event loop is busy across it, meets a closed socket and fails with no answer. 65 s
 * outlasts them all; an idle socket costs a file descriptor and a few kilobytes.
 */
export const KEEP_ALIVE_MS = 65_000;

/** Sets the idle keep-alive timeout of the server `doco serve` listens with (node-errors.ts; HTTP/1.1: the only kind Doco serves). */
export function keepConnectionsAlive(server: ServerType): void {
  // headersTimeout (60 s) stays: since Node 18 it counts from a request's first byte, not from the
  // previous answer, so it does not cut an idle connection short.
  (server as Server).keepAliveTimeout = KEEP_ALIVE_MS;
}
