// textUpTo: a response body read no further than its cap, the stream cancelled there.
import { describe, expect, it } from 'vitest';
import { textUpTo } from '../../src/lib/text-up-to.js';

/** A body that never ends, counting how much of it was pulled and whether it was cancelled. */
function endless(chunk: Uint8Array) {
  const seen = { pulled: 0, cancelled: false };
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      seen.pulled += chunk.byteLength;
      controller.enqueue(chunk);
    },
    cancel() {
      seen.cancelled = true;
    },
  });
  return { res: new Response(body), seen };
}

describe('textUpTo', () => {
  it('stops at the cap of a body that never ends, and cancels it', async () => {
    const { res, seen } = endless(new TextEncoder().encode('ledger '.repeat(1000)));
    const { text, cut } = await textUpTo(res, 100_000);
    expect(cut).toBe(true);
    expect(text).toHaveLength(100_000);
    expect(text.startsWith('ledger ledger')).toBe(true);
    expect(seen.cancelled).toBe(true);
    expect(seen.pulled).toBeLessThan(100_000 + 3 * 7000);
  });

  it('reads a shorter body whole, and leaves out a character the cap splits', async () => {
    expect(await textUpTo(new Response('Rückerstattung'), 1000)).toEqual({ text: 'Rückerstattung', cut: false });
    // "Rü" is 3 bytes: a cap of 2 keeps "R" and drops the half of "ü".
    expect(await textUpTo(new Response('Rü'), 2)).toEqual({ text: 'R', cut: true });
    expect(await textUpTo(new Response(null), 10)).toEqual({ text: '', cut: false });
  });
});
