// Size limits on writes, documented in docs/limits.md; valibot enforces them at the edge and
// the schema's checks enforce title and prose again in SQL.
export const LIMITS = {
  titleChars: 300,
  proseChars: 100_000,
  bodyJsonBytes: 256 * 1024,
  goalChars: 2_000,
  operationsPerChangeset: 50,
  requestBytes: 4 * 1024 * 1024,
} as const;
