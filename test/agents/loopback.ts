// Starting and stopping the suite's own loopback servers (fake model, recording proxy, refuser).
import type { Server as HttpServer } from 'node:http';
import type { AddressInfo, Server } from 'node:net';

/** Listens on a free loopback port; returns http://127.0.0.1:PORT. */
export async function listenOnLoopback(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Drops open connections (an HTTP server's keep-alive ones included) and closes the server. */
export async function closeServer(server: Server | HttpServer): Promise<void> {
  if ('closeAllConnections' in server) server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}
