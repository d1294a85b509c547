// Where a stop ends no sentence, for the cuts that end at a sentence (excerpt.ts) and the pieces
// a passage is built of (src/brief/passage.ts): after an abbreviation a sentence goes on past
// ("e.g. every 10000 heights"), and a list's number is where an item starts, not a sentence's end
// ("offer three advantages: 1. Faster queries", an ordered list flattened into the prose, was cut
// to "…advantages: 1.…"). A number ends a sentence ("the limit is 10. Then…") unless it opens the
// clause: the text's start, or after a colon or another stop.

/** A lookbehind to write before `[.!?]`: not after an abbreviation or a list's number. */
export const NOT_A_SENTENCE_STOP = String.raw`(?<!\b(?:e\.g|i\.e|cf|vs)|(?:^|[:;.!?][)"'’”]?\s+)\d{1,3})`;
