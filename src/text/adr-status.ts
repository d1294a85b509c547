// Whether an architecture decision record's status says it is in force: the status the doc
// ingester records on each section of the file (body.adr_status, src/ingest/docs/adr-status.ts),
// read by its first word. The brief lets no section of an ADR that is not in force stand as an
// order, and the brief and search both say it in the item's `because` (docs/brief.md, step 4).

/**
 * The statuses of an ADR that decided nothing in force: turned down, replaced, withdrawn, or not
 * yet agreed (only approved knowledge stands under must obey, as a proposal never does).
 */
const NOT_IN_FORCE =
  /^(?:rejected|declined|superseded|deprecated|withdrawn|abandoned|obsolete|retired|replaced|proposed|draft|pending|wip|in review|under review|in discussion)\b/i;

/**
 * A record body's ADR status when it says the ADR is not in force ("Rejected"), else undefined.
 * Read on an architecture section only, where the ingester records it: on any other record it is
 * just a field its writer chose.
 */
export function statusNotInForce(body: Record<string, unknown>): string | undefined {
  if (body.shape !== 'architecturePrinciple') return undefined;
  const status = body.adr_status;
  return typeof status === 'string' && NOT_IN_FORCE.test(status) ? status : undefined;
}

/**
 * What an item of an ADR not in force adds to its `because`, wherever it is sent: "ADR rejected",
 * "ADR superseded by ADR-012" (the status's first clause, its links as their words, its
 * capitalised words in lower case; short: every hook brief carries it).
 */
export function notInForceNote(body: Record<string, unknown>): string | undefined {
  const status = statusNotInForce(body);
  if (!status) return undefined;
  const clause = status
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .split(/[.(,;]|\s[-–—]\s/)[0]!
    .trim()
    .slice(0, 40)
    .trim();
  return `ADR ${clause.replace(/\b[A-Z][a-z]+\b/g, (word) => word.toLowerCase())}`;
}

/** `because` with the note of an ADR not in force, when the body has one. */
export const withStatusNote = (because: string, body: Record<string, unknown>) => {
  const note = notInForceNote(body);
  return note ? `${because}; ${note}` : because;
};
