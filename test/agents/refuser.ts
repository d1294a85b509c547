// The proxy every agent is given (HTTPS_PROXY/HTTP_PROXY): a loopback TCP listener that closes
// each connection the moment it opens, so a CLI reaching for its vendor's hosts through the
// proxy fails at once instead of waiting on a timeout. It counts the attempts.
import net from 'node:net';
import { closeServer, listenOnLoopback } from './loopback.js';

export class Refuser {
  attempts = 0;
  private server = net.createServer((socket) => {
    this.attempts++;
    socket.destroy();
  });

  start(): Promise<string> {
    return listenOnLoopback(this.server);
  }

  stop(): Promise<void> {
    return closeServer(this.server);
  }
}
