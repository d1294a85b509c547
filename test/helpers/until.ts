// Polling for what a background job will have done, with no timing asserted: the condition is
// checked every 50 ms until it holds or the (generous) timeout passes.

/** Resolves with check's first answer other than undefined, null or false; throws after timeoutMs. */
export async function until<T>(check: () => Promise<T | undefined | null | false>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const v = await check();
    if (v !== undefined && v !== null && v !== false) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('condition not met in time');
}
