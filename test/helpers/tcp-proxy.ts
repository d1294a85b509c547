// A loopback TCP proxy to a port on this machine that can be closed and opened again on the same
// port: a database "going away" (every connection through it cut, new ones refused) and coming
// back, without stopping the database the other tests share.
import net from 'node:net';

export interface TcpProxy {
  readonly port: number;
  /** Cuts every connection through the proxy and stops accepting: connecting is refused. */
  close(): Promise<void>;
  /** Accepts again, on the same port. */
  open(): Promise<void>;
}

export async function tcpProxy(targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let server: net.Server | undefined;
  let port = 0;
  const open = async () => {
    const s = net.createServer((client) => {
      const upstream = net.connect(targetPort, '127.0.0.1');
      sockets.add(client).add(upstream);
      const drop = () => {
        client.destroy();
        upstream.destroy();
        sockets.delete(client);
        sockets.delete(upstream);
      };
      for (const end of [client, upstream]) end.on('error', drop).on('close', drop);
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => resolve());
    });
    port = (s.address() as net.AddressInfo).port;
    server = s;
  };
  await open();
  return {
    get port() {
      return port;
    },
    async close() {
      const s = server;
      server = undefined;
      for (const socket of sockets) socket.destroy();
      sockets.clear();
      if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
    },
    open,
  };
}
