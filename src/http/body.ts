// A request body read with a bound that holds while it streams: a declared Content-Length over
// the limit is refused before a byte is read, and a body sent without one (chunked) is read only
// until it passes the limit, then the stream is cancelled and the request answered 413. Nothing
// buffers a body whole before its size is known, so an unauthenticated client cannot make the
// process hold what it sends.
import type { Context } from 'hono';
import { AppError } from '../errors.js';

/** The body's bytes, at most `maxBytes` of them; payload_too_large past that. */
export async function readBoundedBody(c: Context, maxBytes: number, what: string): Promise<Uint8Array> {
  const tooLarge = () => new AppError('payload_too_large', `${what} is larger than ${maxBytes} bytes`);
  const declared = c.req.header('content-length');
  if (declared !== undefined && Number(declared) > maxBytes) throw tooLarge();
  const stream = c.req.raw.body;
  if (!stream) return new Uint8Array(0);
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      // Stop reading here: the rest of the body is never held, and the client gets its 413.
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size);
}

/** The body as UTF-8 text (invalid sequences replaced, as a browser's decoder would), bounded as above. */
export async function readBoundedText(c: Context, maxBytes: number, what: string): Promise<string> {
  return new TextDecoder().decode(await readBoundedBody(c, maxBytes, what));
}
