// callServer, the command line's request to a running server, against loopback servers that
// misbehave: one that takes the connection and never answers, and one that answers HTML or JSON
// that is no Doco answer. Each is one clear error, never a stack or the answer's text.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callServer } from '../../src/cli/server-client.js';

let server: Server;
let url: string;
let answer: { status: number; type: string; body: string } | 'never' = 'never';

beforeAll(async () => {
  server = createServer((_req, res) => {
    if (answer === 'never') return; // holds the request open
    res.writeHead(answer.status, { 'content-type': answer.type });
    res.end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('callServer', () => {
  it('gives up on a server that never answers, saying how long it waited', async () => {
    answer = 'never';
    await expect(callServer(url, 'doco_x', 'GET', '/api/v1/search?q=x', undefined, 'application/json', 300)).rejects.toThrow(
      `the Doco server at ${url} did not answer within 0.3 s`,
    );
  });

  it('says an answer that is not a Doco answer is not one, without quoting it', async () => {
    for (const [type, body] of [
      ['text/html', '<html><body>Welcome to nginx! secret-looking-text</body></html>'],
      ['application/json', 'null'],
      ['application/json', '[1,2]'],
    ]) {
      answer = { status: 200, type: type!, body: body! };
      const err = (await callServer(url, 'doco_x', 'GET', '/api/v1/search?q=x').catch((e: unknown) => e)) as Error;
      expect(err.message).toBe(`${url} answered 200 with something other than a Doco answer: is DOCO_URL a Doco server?`);
    }
    answer = { status: 502, type: 'text/html', body: '<html>Bad gateway</html>' };
    await expect(callServer(url, 'doco_x', 'GET', '/api/v1/search?q=x')).rejects.toMatchObject({
      code: 'unavailable',
      message: 'the server answered 502',
    });
    answer = { status: 200, type: 'application/json', body: '{"results":[]}' };
    expect(await callServer(url, 'doco_x', 'GET', '/api/v1/search?q=x')).toEqual({ results: [] });
  });
});
