// The concerns of a multi-part ask ("add X and make Y configurable, and document Z"): each
// clause is retrieved on its own as well as the whole, so a concern that shares few words with
// the rest of the ask still brings the docs that answer it.
import { tokenize } from '../text/tokenize.js';

/** At most this many clauses are searched on their own (each costs one store search). */
export const MAX_CLAUSES = 4;
/** A clause needs this many index terms to stand as a concern; shorter pieces join a neighbour. */
const MIN_TERMS = 2;
/**
 * A bare "and" also joins the parts of one noun phrase ("the audit and access logs", "signed
 * and unsigned payloads"), so it splits only where both sides could stand as asks of their own.
 */
const MIN_TERMS_AT_AND = 3;

// Clause boundaries: punctuation that separates phrases, and conjunctions that start a new one.
const BOUNDARY = /\s*(?:[;:,]|\.\s|\band then\b|\band also\b|\bthen\b|\bplus\b|\balso\b|\bas well as\b)\s*/i;
const AND = /\s+and\s+/i;

const termCount = (text: string) => tokenize(text).length;

/** A piece split at each bare "and" whose both sides hold enough terms to stand. */
function splitAtAnd(piece: string): string[] {
  const parts = piece.split(AND);
  const out: string[] = [];
  let current = parts[0]!;
  for (let i = 1; i < parts.length; i++) {
    const rest = parts.slice(i).join(' and ');
    if (termCount(current) >= MIN_TERMS_AT_AND && termCount(parts[i]!) >= MIN_TERMS_AT_AND) {
      out.push(current);
      current = parts[i]!;
    } else if (termCount(rest) < MIN_TERMS_AT_AND) {
      current = `${current} and ${rest}`;
      break;
    } else current = `${current} and ${parts[i]}`;
  }
  out.push(current);
  return out;
}

/** The ask's clauses, or [] when it holds one concern. */
export function splitClauses(about: string): string[] {
  const pieces = about
    .split(BOUNDARY)
    .map((p) => p.trim())
    .filter(Boolean)
    .flatMap(splitAtAnd)
    .map((p) => p.replace(/^and\s+/i, '').trim())
    .filter(Boolean);
  const clauses: string[] = [];
  for (const piece of pieces) {
    if (termCount(piece) >= MIN_TERMS || clauses.length === 0) clauses.push(piece);
    else clauses[clauses.length - 1] = `${clauses[clauses.length - 1]} ${piece}`;
  }
  // A first piece too short to stand ("so", "first") joins the next one.
  if (clauses.length > 1 && termCount(clauses[0]!) < MIN_TERMS) clauses.splice(0, 2, `${clauses[0]} ${clauses[1]}`);
  // Too many: the two neighbours with the fewest terms between them become one, so no concern is dropped.
  while (clauses.length > MAX_CLAUSES) {
    let at = 0;
    for (let i = 1; i + 1 < clauses.length; i++)
      if (termCount(clauses[i]!) + termCount(clauses[i + 1]!) < termCount(clauses[at]!) + termCount(clauses[at + 1]!)) at = i;
    clauses.splice(at, 2, `${clauses[at]} ${clauses[at + 1]}`);
  }
  return clauses.length > 1 ? clauses : [];
}
