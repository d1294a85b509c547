// The suite's own fence: agents run in a network namespace that holds only loopback, and the
// proxy they are given refuses every connection. Both are checked, not assumed.
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { Refuser } from './refuser.js';
import { namespaceProblem } from './world.js';

const connect = (host: string, port: number) =>
  new Promise<string>((resolve) => {
    const socket = net.connect({ host, port });
    socket.setTimeout(5000, () => {
      socket.destroy();
      resolve('timeout');
    });
    socket.once('connect', () => {
      socket.once('close', () => resolve('connected, then closed'));
      socket.once('data', () => resolve('connected and answered'));
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });

describe.skipIf(namespaceProblem() !== undefined)('the network namespace the agents run in', () => {
  it('has no route off the machine', async () => {
    // TEST-NET-1 and a public resolver's address: with only loopback there is no route at all.
    expect(await connect('192.0.2.1', 443)).toBe('ENETUNREACH');
    expect(await connect('1.1.1.1', 443)).toBe('ENETUNREACH');
  });

  it('gives agents a proxy that closes every connection at once', async () => {
    const refuser = new Refuser();
    const url = new URL(await refuser.start());
    try {
      expect(await connect(url.hostname, Number(url.port))).toBe('connected, then closed');
      expect(refuser.attempts).toBe(1);
    } finally {
      await refuser.stop();
    }
  });
});
