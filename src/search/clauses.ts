// The concerns of a multi-part ask ("add X and make Y configurable, and document Z"): each
// clause is retrieved on its own as well as the whole, so a concern that shares few words with
// the rest of the ask still brings the docs that answer it.
import { tokenize } from './tokenize.js';

/** At most this many clauses are searched on their own (each costs one store search). */
export const MAX_CLAUSES = 4;
/** A clause needs this many index terms to stand as a concern; shorter pieces join a neighbour. */
const MIN_TERMS = 2;

// Clause boundaries: punctuation that separates phrases, and conjunctions that start a new one.
// A bare "and" inside a noun phrase ("stores and gossips") rarely leaves two pieces of two terms.
const BOUNDARY = /\s*(?:[;:,]|\.\s|\band then\b|\band also\b|\band\b|\bthen\b|\bplus\b|\balso\b|\bas well as\b)\s*/i;

/** The ask's clauses, or [] when it holds one concern. */
export function splitClauses(about: string): string[] {
  const pieces = about.split(BOUNDARY).map((p) => p.trim()).filter(Boolean);
  const clauses: string[] = [];
  for (const piece of pieces) {
    if (tokenize(piece).length >= MIN_TERMS || clauses.length === 0) clauses.push(piece);
    else clauses[clauses.length - 1] = `${clauses[clauses.length - 1]} ${piece}`;
  }
  // A first piece too short to stand ("so", "first") joins the next one.
  if (clauses.length > 1 && tokenize(clauses[0]!).length < MIN_TERMS) clauses.splice(0, 2, `${clauses[0]} ${clauses[1]}`);
  return clauses.length > 1 ? clauses.slice(0, MAX_CLAUSES) : [];
}
