// How long GitHub asks us to wait (docs/connectors.md, GitHub, rate limits): `retry-after` as given;
// `x-ratelimit-remaining: 0` until `x-ratelimit-reset`; any other 403/429 that says it is a rate
// limit is a secondary limit: at least 60 s. Undefined when the response is no rate limit at all.

export const SECONDARY_LIMIT_WAIT_MS = 60_000;

export function rateLimitWaitMs(
  status: number,
  header: (name: string) => string | null,
  bodyText: string,
  nowMs: number,
): number | undefined {
  if (status !== 403 && status !== 429) return undefined;
  const retryAfter = header('retry-after');
  if (retryAfter && /^\d+$/.test(retryAfter.trim())) return Number(retryAfter.trim()) * 1000;
  if (header('x-ratelimit-remaining')?.trim() === '0') {
    const reset = Number(header('x-ratelimit-reset'));
    return Number.isFinite(reset) ? Math.max(0, reset * 1000 - nowMs) : SECONDARY_LIMIT_WAIT_MS;
  }
  if (status === 429 || /rate limit/i.test(bodyText)) return SECONDARY_LIMIT_WAIT_MS;
  return undefined; // a plain 403: a permission the app lacks
}
