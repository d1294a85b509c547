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
/** The terms " and " adds where it joins two pieces (none if the tokenizer drops the word). */
const AND_TERMS = termCount('and');

/**
 * A piece split at each bare "and" whose both sides hold enough terms to stand. Each part is
 * tokenized once and joined pieces add their counts: a piece's terms are its words' (a space or
 * " and " between two never makes or breaks one), and counting every join again made an ask of
 * many parts quadratic (8,000 characters held the server 7-10 s, a hostile review).
 */
function splitAtAnd(piece: string): string[] {
  const parts = piece.split(AND);
  const counts = parts.map(termCount);
  // rest[i]: the terms of parts i.. joined by " and ".
  const rest = new Array<number>(parts.length + 1).fill(0);
  for (let i = parts.length - 1; i >= 0; i--) rest[i] = counts[i]! + (i + 1 < parts.length ? AND_TERMS + rest[i + 1]! : 0);
  const out: string[] = [];
  let current = parts[0]!;
  let currentTerms = counts[0]!;
  for (let i = 1; i < parts.length; i++) {
    if (currentTerms >= MIN_TERMS_AT_AND && counts[i]! >= MIN_TERMS_AT_AND) {
      out.push(current);
      current = parts[i]!;
      currentTerms = counts[i]!;
    } else if (rest[i]! < MIN_TERMS_AT_AND) {
      current = `${current} and ${parts.slice(i).join(' and ')}`;
      break;
    } else {
      current = `${current} and ${parts[i]}`;
      currentTerms += AND_TERMS + counts[i]!;
    }
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
  const terms: number[] = [];
  for (const piece of pieces) {
    const n = termCount(piece);
    if (n >= MIN_TERMS || clauses.length === 0) {
      clauses.push(piece);
      terms.push(n);
    } else {
      clauses[clauses.length - 1] = `${clauses[clauses.length - 1]} ${piece}`;
      terms[terms.length - 1]! += n;
    }
  }
  const join = (at: number) => {
    clauses.splice(at, 2, `${clauses[at]} ${clauses[at + 1]}`);
    terms.splice(at, 2, terms[at]! + terms[at + 1]!);
  };
  // A first piece too short to stand ("so", "first") joins the next one.
  if (clauses.length > 1 && terms[0]! < MIN_TERMS) join(0);
  // Too many: the two neighbours with the fewest terms between them become one, so no concern is dropped.
  while (clauses.length > MAX_CLAUSES) {
    let at = 0;
    for (let i = 1; i + 1 < clauses.length; i++) if (terms[i]! + terms[i + 1]! < terms[at]! + terms[at + 1]!) at = i;
    join(at);
  }
  return clauses.length > 1 ? clauses : [];
}
