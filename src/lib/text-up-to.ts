// A fetch response's text, read no further than a cap: a body is streamed and the stream cancelled
// at the cap, where `res.text()` held all of it first (a 600 MiB file in a synced Drive folder
// took over 1 GB of the worker's memory and failed the sweep on every run, its page never
// committed: a hostile review).

/** Up to `maxBytes` of the body as UTF-8 (a character the cap splits is left out), and whether it went on. */
export async function textUpTo(res: Response, maxBytes: number): Promise<{ text: string; cut: boolean }> {
  if (!res.body) return { text: '', cut: false };
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let read = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { text: text + decoder.decode(), cut: false };
      const room = maxBytes - read;
      if (value.byteLength > room) {
        // The rest is not read: a split character at the end is dropped rather than replaced.
        return { text: text + decoder.decode(value.subarray(0, room), { stream: true }), cut: true };
      }
      read += value.byteLength;
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}
