// The proxy every agent is given (HTTPS_PROXY/HTTP_PROXY): a loopback TCP listener that closes
// each connection the moment it opens, so a CLI reaching for its vendor's hosts through the
// proxy fails at once instead of waiting on a timeout. It counts the attempts.
import net from 'node:net';

export class Refuser {
  attempts = 0;
  private server = net.createServer((socket) => {
    this.attempts++;
    socket.destroy();
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as net.AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
