// Size limits on writes, documented in docs/reference.md ("Limits"); valibot enforces them at the edge and
// the schema's checks enforce title and prose again in SQL.
export const LIMITS = {
  titleChars: 300,
  proseChars: 100_000,
  bodyJsonBytes: 256 * 1024,
  goalChars: 2_000,
  operationsPerChangeset: 50,
  requestBytes: 4 * 1024 * 1024,
} as const;

/**
 * How many versions one read of a record's history returns: each carries the record's whole text
 * and body (up to 256 KiB), and a record may have thousands, so history is read a page at a time.
 */
export const VERSIONS_PAGE = { default: 20, max: 100 } as const;
/**
 * A page of versions also stops once its prose and bodies pass this many characters (it always
 * holds one): a hundred versions of a 250 KiB body answered 35 MB over REST and twice that over
 * MCP, which sends a result as text and as structured content (a hostile review).
 */
export const VERSIONS_PAGE_CHARS = 2 * 1024 * 1024;

/** How many of a record's edges one read returns (each is small; a record may have thousands). */
export const EDGES_PAGE = { default: 100, max: 500 } as const;
