// The names a change moves, as the alignment scan reads a file's patch: the identifiers of its
// added and removed lines and its hunk headers (src/text/identifiers.ts reads the lines). Docs
// that name them expect the old code. A prose file's changed lines are not code.
import { lineIdentifiers, type ChangedIdentifier } from '../text/identifiers.js';
import { patchLines } from './diff.js';

export { nameWords, spellings, type ChangedIdentifier, type IdentifierChange } from '../text/identifiers.js';

/** Files whose changed lines are prose, not code: their words are not identifiers. */
export const PROSE_FILE = /\.(md|mdx|markdown|rst|txt|adoc)$/i;

/** The identifiers of one file's patch, most telling first; at most `limit`. */
export function changedIdentifiers(path: string, patch: string | undefined, limit = 40): ChangedIdentifier[] {
  if (!patch || PROSE_FILE.test(path)) return [];
  return lineIdentifiers(patchLines(patch), limit);
}
