// Dated status in prose (docs/ingest.md, "Author rules": no dated status, version stamp or progress framing): an
// ingested architecture section is recalled as a standing claim long after the date stopped
// holding. The patterns lean towards silence: a bare number is a year only with a date's context.
//
// What is flagged, case-insensitively unless noted:
//   as-of            "as of 2024", "as of March 2024", "as of now/today/writing/this quarter", "as of v1.2"
//   now              currently, at the moment, right now, at present, presently, for now, today,
//                    as things stand, at the time of writing
//   relative-period  this/last/next week|month|quarter|year|sprint, yesterday
//   version-stamp    v1.2 / v1.2.3; "since 0.38", "until 2.1", "added in 1.4", "new in v3.0"
//                    (not "in 2.5 seconds": a unit after the number silences it)
//   date             ISO dates (2024-03, 2024-03-15); a month, season, quarter or half with a year
//                    (March 2024, Q3 2024); a year after in/since/by/during/until/from/before/
//                    after/early/mid/late (not "from 2000 rows"); "(2024)". Years are 2000–2039,
//                    so 2048 or 4096 is never a year.
//   measurement      last measured/checked/benchmarked/run/updated/reviewed/verified, measured on/in/at,
//                    a percentage in one sentence with measured/benchmarked/observed/sampled
//   progress         work in progress, coming soon, not yet implemented/supported/…, recently
//                    added/landed/…, is being built/migrated/…; WIP and TODO (upper case only)
// Deliberately not flagged: "current" and "currency" (and "concurrently"), "recently" alone ("the
// most recently committed block"), "not yet" alone ("if the block is not yet final"), "so far",
// "as soon as", bare numbers. Callers strip code spans, fenced code and link targets first.

export type DatedKind = 'as-of' | 'now' | 'relative-period' | 'version-stamp' | 'date' | 'measurement' | 'progress';

export interface DatedClaim {
  kind: DatedKind;
  /** The matched text, whitespace collapsed. */
  text: string;
  /** Offset of the match in the scanned text. */
  index: number;
}

const YEAR = '20[0-3]\\d';
const MONTH = 'jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?';
const NOT_A_QUANTITY = '(?![.,]?\\d)(?!\\s*(?:%|[kmgt]i?b\\b|ms\\b|s\\b|x\\b|bytes?|tokens?|chars?|characters?|rows?|records?|items?|lines?|requests?|entries|words?|seconds?|minutes?|hours?|days?|times))';
const VERSION = '(?:v(?:ersion\\s)?)?\\d+\\.\\d+(?:\\.\\d+)*';

const PATTERNS: { kind: DatedKind; re: RegExp }[] = [
  {
    kind: 'as-of',
    re: new RegExp(`\\bas of (?:(?:early|mid|late|end of|start of)[ -])?(?:(?:${MONTH})\\.? (?:\\d{1,2},? )?)?(?:${YEAR}\\b|today\\b|now\\b|(?:this )?writing\\b|this (?:week|month|quarter|year|release|sprint)\\b|${VERSION}${NOT_A_QUANTITY})`, 'gi'),
  },
  { kind: 'now', re: /\b(?:currently|at the moment|right now|at present|presently|for now|today|as things stand|at the time of writing)\b/gi },
  { kind: 'relative-period', re: /\b(?:(?:this|last|next) (?:week|month|quarter|year|sprint)|yesterday)\b/gi },
  { kind: 'version-stamp', re: /(?<![\w.\/-])v\d+\.\d+(?:\.\d+)*(?![\w.]*\w)/gi },
  {
    kind: 'version-stamp',
    re: new RegExp(`\\b(?:since|until|(?:added|introduced|removed|deprecated|new|changed|fixed|shipped|released|landed) in) ${VERSION}\\b${NOT_A_QUANTITY}`, 'gi'),
  },
  { kind: 'date', re: new RegExp(`\\b${YEAR}-(?:0[1-9]|1[0-2])(?:-(?:0[1-9]|[12]\\d|3[01]))?\\b`, 'g') },
  { kind: 'date', re: new RegExp(`\\b(?:${MONTH}|spring|summer|autumn|fall|winter|q[1-4]|h[12])\\.?,? (?:\\d{1,2}(?:st|nd|rd|th)?,? )?${YEAR}\\b`, 'gi') },
  { kind: 'date', re: new RegExp(`\\b(?:in|since|by|during|until|till|from|before|after|around|circa|early|mid|late|end of|start of)[ -]${YEAR}\\b${NOT_A_QUANTITY}`, 'gi') },
  { kind: 'date', re: new RegExp(`\\(${YEAR}\\)`, 'g') },
  { kind: 'measurement', re: /\b(?:last (?:measured|checked|benchmarked|run|updated|reviewed|verified)|measured (?:on|in|at))\b/gi },
  {
    kind: 'measurement',
    re: /\b\d+(?:\.\d+)?\s?%(?=[^.\n]*\b(?:measured|benchmarked|observed|sampled)\b)|\b(?:measured|benchmarked|observed|sampled)\b[^.\n]*?\d+(?:\.\d+)?\s?%/gi,
  },
  {
    kind: 'progress',
    re: /\b(?:work in progress|coming soon|not yet (?:implemented|supported|done|built|wired|shipped|available)|recently (?:added|introduced|landed|shipped|changed|moved|renamed|migrated|merged|rewritten)|(?:is|are) being (?:built|implemented|migrated|rewritten|worked on))\b/gi,
  },
  { kind: 'progress', re: /\b(?:WIP|TODO)\b/g },
];

/** The dated claims in one line or paragraph of prose, left to right, overlapping matches merged. */
export function findDatedClaims(text: string): DatedClaim[] {
  const found: (DatedClaim & { end: number })[] = [];
  for (const { kind, re } of PATTERNS) {
    for (const m of text.matchAll(re)) found.push({ kind, text: m[0].replace(/\s+/g, ' '), index: m.index, end: m.index + m[0].length });
  }
  found.sort((a, b) => a.index - b.index || b.end - a.end);
  const kept: (DatedClaim & { end: number })[] = [];
  for (const c of found) if (!kept.length || c.index >= kept.at(-1)!.end) kept.push(c);
  return kept.map(({ kind, text, index }) => ({ kind, text, index }));
}
