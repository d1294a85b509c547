// The HTTP server `doco serve` listens with, and the answers given before the app sees a request:
// Node's parser refusing a request line and headers over its limit or a request that is not
// HTTP, no Host, an Expect it does not meet, and @hono/node-server failing to make a URL of the
// request. Node and the adapter answer those with an empty body; here they get the one error
// shape every other error has (docs/reference.md, "Errors").
import http, { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { getRequestListener, RequestError } from '@hono/node-server';
import { AppError } from '../errors.js';
import type { Log } from '../lib/log.js';
import { API_SECURITY_HEADERS } from './security-headers.js';

type Fetch = Parameters<typeof getRequestListener>[0];

/** An HTTP/1.1 server for `fetch` (the Hono app's), not yet listening. */
export function createHttpServer(fetch: Fetch, log: Log): Server {
  const listener = getRequestListener(fetch, { errorHandler: (err) => requestErrorResponse(err, log) });
  const server = http.createServer(
    // Node's own check answers a request without a Host with an empty 400; without it, the
    // request listener refuses it ("missing host header"), in the error shape.
    { requireHostHeader: false },
    (req, res) => {
      // The listener answers every failure itself: a rejection would be a bug in it.
      listener(req, res).catch((err: unknown) => {
        log.error(`the request listener failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
        res.destroy();
      });
    },
  );
  answerClientErrors(server);
  server.on('checkExpectation', refuseExpectation);
  return server;
}

/** What a parser or socket error is answered with, or undefined when there is no one to answer. */
export function clientErrorAnswer(err: Error & { code?: string; reason?: string }): AppError | undefined {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new AppError(
        'headers_too_large',
        `the request line and headers are too large: this server reads at most ${http.maxHeaderSize} bytes of them; send a shorter URL or fewer headers`,
      );
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new AppError('payload_too_large', 'the chunk extensions of the body are too large');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new AppError('request_timeout', 'the request was not received in time: send it again');
  }
  // Any other parser error is a request that is not HTTP; a socket error (ECONNRESET, EPIPE)
  // means the client is gone or going, and gets no answer.
  if (!err.code?.startsWith('HPE_')) return undefined;
  return new AppError('validation_failed', `the request is not valid HTTP/1.1: ${err.reason ?? err.message}`);
}

/**
 * Answers Node's 'clientError' (a request its parser refused, before any request object exists)
 * straight on the socket, then closes it: the parser cannot go on past an error. As Node's own
 * handler does, it writes nothing once an answer on that connection has begun (a pipelined
 * request's), which the bytes would corrupt.
 */
function answerClientErrors(server: Server): void {
  // The sockets being answered: the parser reports more data on them as further errors.
  const answering = new WeakSet<Duplex>();
  server.on('clientError', (err: Error, socket: Duplex) => {
    if (answering.has(socket)) return;
    const answer = clientErrorAnswer(err);
    const inFlight = (socket as { _httpMessage?: ServerResponse | null })._httpMessage;
    if (!answer || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    answering.add(socket);
    const body = JSON.stringify(answer.toBody());
    const headers = { ...jsonHeaders(body), connection: 'close' };
    const head = [
      `HTTP/1.1 ${answer.status} ${http.STATUS_CODES[answer.status]}`,
      ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    ];
    socket.end(`${head.join('\r\n')}\r\n\r\n${body}`, () => socket.destroy());
  });
}

/** An `Expect` other than 100-continue, which Node would answer with an empty 417. */
function refuseExpectation(req: IncomingMessage, res: ServerResponse): void {
  const expectation = String(req.headers.expect).slice(0, 100);
  const answer = new AppError(
    'expectation_failed',
    `this server meets no Expect but 100-continue (got ${JSON.stringify(expectation)}): send the request without it`,
  );
  const body = JSON.stringify(answer.toBody());
  res.writeHead(answer.status, jsonHeaders(body));
  res.end(body);
}

/**
 * @hono/node-server's answer when it cannot make a Request of what Node parsed (no Host, an
 * invalid one, a backslash in the path), or when the app's fetch itself throws, which Hono's
 * onError leaves only to a bug.
 */
function requestErrorResponse(err: unknown, log: Log): Response {
  let answer: AppError;
  if (err instanceof RequestError) {
    answer = new AppError('validation_failed', `the request cannot be read: ${err.message.charAt(0).toLowerCase()}${err.message.slice(1)}`);
  } else {
    log.error(`unexpected error outside the app: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    answer = new AppError('internal', 'internal error');
  }
  const body = JSON.stringify(answer.toBody());
  return new Response(body, { status: answer.status, headers: jsonHeaders(body) });
}

function jsonHeaders(body: string): Record<string, string> {
  return { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...API_SECURITY_HEADERS };
}
