// A request body read with a bound that holds while it streams: a declared Content-Length over
// the limit is refused before a byte is read, and a body sent without one (chunked) is read only
// until it passes the limit, then the stream is cancelled and the request answered 413. Nothing
// buffers a body whole before its size is known, so an unauthenticated client cannot make the
// process hold what it sends.
import { IncomingMessage } from 'node:http';
import type { Context } from 'hono';
import { AppError } from '../errors.js';

/**
 * Bytes that the bodies being read at once may hold together. A route that takes large bodies
 * without a token (GitHub's webhook takes up to 8 MB) would otherwise let sixteen parallel
 * uploads hold 128 MB: past the budget a read stops and answers 503, to be sent again.
 */
export class BodyBudget {
  private held = 0;
  constructor(readonly maxBytes: number) {}

  take(bytes: number): boolean {
    if (this.held + bytes > this.maxBytes) return false;
    this.held += bytes;
    return true;
  }

  give(bytes: number): void {
    this.held -= bytes;
  }
}

/** Whether the request came through @hono/node-server, whose HTTP parser holds a body to its Content-Length. */
const servedByNode = (c: Context) => (c.env as { incoming?: unknown } | undefined)?.incoming instanceof IncomingMessage;

/** The body's bytes, at most `maxBytes` of them; payload_too_large past that (or unavailable past `budget`). */
export async function readBoundedBody(c: Context, maxBytes: number, what: string, budget?: BodyBudget): Promise<Uint8Array> {
  const tooLarge = () => new AppError('payload_too_large', `${what} is larger than ${maxBytes} bytes`);
  const unavailable = () => new AppError('unavailable', `too many large bodies are being read at once: send ${what} again in a moment`);
  const declared = c.req.header('content-length');
  if (declared !== undefined && Number(declared) > maxBytes) throw tooLarge();
  // A declared length within the bound, on a Node server: Node's parser reads no byte past it,
  // so the body is read whole, straight from the socket. Asking for `body` instead builds a web
  // Request and stream around it, a quarter of a millisecond of a capture (docs/eval.md, "Session 12").
  const length = declared === undefined ? NaN : Number(declared);
  if (Number.isSafeInteger(length) && length >= 0 && servedByNode(c)) {
    if (budget && !budget.take(length)) throw unavailable();
    try {
      const bytes = new Uint8Array(await c.req.raw.arrayBuffer());
      if (bytes.byteLength > maxBytes) throw tooLarge();
      return bytes;
    } finally {
      budget?.give(length);
    }
  }
  const stream = c.req.raw.body;
  if (!stream) return new Uint8Array(0);
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (size + value.byteLength > maxBytes || (budget && !budget.take(value.byteLength))) {
        // Stop reading here: the rest of the body is never held, and the client gets its answer.
        await reader.cancel().catch(() => {});
        if (size + value.byteLength > maxBytes) throw tooLarge();
        throw unavailable();
      }
      size += value.byteLength;
      chunks.push(value);
    }
    return Buffer.concat(chunks, size);
  } finally {
    budget?.give(size);
  }
}

/** The body as UTF-8 text (invalid sequences replaced, as a browser's decoder would), bounded as above. */
export async function readBoundedText(c: Context, maxBytes: number, what: string, budget?: BodyBudget): Promise<string> {
  return new TextDecoder().decode(await readBoundedBody(c, maxBytes, what, budget));
}
