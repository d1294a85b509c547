// Cuts record and document text into overlapping chunks for embedding, and gives each chunk
// the content hash that decides whether it must be (re-)embedded.
import { createHash } from 'node:crypto';
import { canonicalJson } from '../lib/canonical-json.js';
import { tokenize } from '../text/tokenize.js';

export interface ChunkOptions {
  /** Most characters (UTF-16 code units) in a chunk. Default 1,600. */
  size?: number;
  /** Characters of context a chunk repeats from the end of the one before. Default 200. */
  overlap?: number;
}

export interface ChunkSource {
  title: string;
  headingPath: string[];
  body: string;
  metadata: Record<string, unknown>;
  /**
   * Words saying where the text lives (a doc section's file path: "core mempool"), which BM25
   * reads with the header but the embedder does not (see lexicalFields). Part of the content hash.
   */
  context?: string;
}

export interface Chunk {
  ordinal: number;
  /** The heading path joined by " > " ("" when there is none). */
  headingPath: string;
  text: string;
  /** Exactly what the embedder is given: title, heading path, then the chunk text. */
  embedInput: string;
  /** The source's context words, "" when it has none. */
  context: string;
  /** sha256 hex of the canonical JSON of {embedder, input, metadata} (the context, when there is one, joins the metadata). */
  contentHash: string;
}

export const DEFAULT_CHUNK_SIZE = 1600;
export const DEFAULT_CHUNK_OVERLAP = 200;

// Boundaries are positions where the next piece of text begins (after its separating
// whitespace), so `body.slice(start, boundary)` is a piece that ends cleanly.
const PARAGRAPH = /\n[^\S\n]*\n\s*/g; // a blank line (spaces, tabs or \r allowed on it)
const LINE = /\n\s*/g;
const SENTENCE = /[.!?…]["'”’)\]]*\s+|[。！？]\s*/gu;
const WORD = /\s+/g;

/** The boundaries of one kind in [lo, hi], finding separators within [start, hi). */
function boundaries(body: string, pattern: RegExp, start: number, lo: number, hi: number): number[] {
  const found: number[] = [];
  for (const m of body.slice(start, hi).matchAll(pattern)) {
    const at = start + m.index + m[0].length;
    if (at >= lo && at <= hi) found.push(at);
  }
  return found;
}

/** Moves a position off the middle of a surrogate pair, backwards. */
function codePointSafe(body: string, at: number): number {
  const prev = body.charCodeAt(at - 1);
  return prev >= 0xd800 && prev <= 0xdbff ? at - 1 : at;
}

/**
 * Where the chunk starting at `start` ends. A paragraph, line or sentence boundary must lie in
 * the second half of the window, so a preferred boundary never yields a chunk shorter than
 * half the size; a word boundary may lie anywhere, so a word is cut only when it alone fills
 * the window (then the cut is a hard one, kept off the middle of a surrogate pair).
 */
function findCut(body: string, start: number, size: number): { at: number; clean: boolean } {
  const limit = start + size;
  const half = start + Math.floor(size / 2);
  for (const pattern of [PARAGRAPH, LINE, SENTENCE]) {
    const last = boundaries(body, pattern, start, half, limit).at(-1);
    if (last !== undefined) return { at: last, clean: true };
  }
  const word = boundaries(body, WORD, start, start + 1, limit).at(-1);
  if (word !== undefined) return { at: word, clean: true };
  const hard = codePointSafe(body, limit);
  return { at: hard > start ? hard : limit, clean: false };
}

/**
 * Where the next chunk starts, given the cut at `cut`: the earliest line (or paragraph)
 * boundary within the last `overlap`…`overlap / 2` characters, else the earliest sentence
 * boundary there, else the earliest word boundary within the last `overlap` characters.
 * So the shared context is between half and all of `overlap` and begins at a clean point.
 */
function nextStart(body: string, start: number, cut: { at: number; clean: boolean }, overlap: number): number {
  if (overlap === 0) return cut.at;
  const lo = Math.max(start + 1, cut.at - overlap);
  const hi = cut.at - Math.ceil(overlap / 2);
  for (const pattern of [LINE, SENTENCE]) {
    const first = boundaries(body, pattern, start, lo, hi)[0];
    if (first !== undefined) return first;
  }
  const word = boundaries(body, WORD, start, lo, cut.at - 1)[0];
  if (word !== undefined) return word;
  // No whitespace near the cut: after a clean cut, start fresh rather than mid-word; inside
  // an over-long word there is nothing better than a hard overlap.
  if (cut.clean) return cut.at;
  const hard = codePointSafe(body, cut.at - overlap);
  return hard > start ? hard : cut.at;
}

/**
 * Cuts `body` into chunks of at most `size` characters, each repeating up to `overlap`
 * characters from the end of the previous one. Cuts prefer paragraph, then line, then
 * sentence, then word boundaries. Chunks are trimmed of surrounding whitespace.
 *
 * Size bound: no chunk ever exceeds `size` (tolerance zero): every cut lies within the window.
 * A single word longer than `size` is cut hard at `size`, never inside a surrogate pair.
 *
 * @example chunkText('First paragraph.\n\nSecond paragraph.', { size: 20, overlap: 0 })
 * // → ['First paragraph.', 'Second paragraph.']
 */
export function chunkText(body: string, opts: ChunkOptions = {}): string[] {
  const size = opts.size ?? DEFAULT_CHUNK_SIZE;
  const overlap = opts.overlap ?? DEFAULT_CHUNK_OVERLAP;
  if (!Number.isInteger(size) || size < 2) throw new RangeError(`chunk size must be an integer ≥ 2, got ${size}`);
  if (!Number.isInteger(overlap) || overlap < 0 || overlap * 2 > size) {
    throw new RangeError(`chunk overlap must be an integer in [0, size / 2], got ${overlap}`);
  }
  const chunks: string[] = [];
  let start = 0;
  while (start < body.length) {
    if (body.length - start <= size) {
      pushTrimmed(chunks, body.slice(start));
      break;
    }
    const cut = findCut(body, start, size);
    pushTrimmed(chunks, body.slice(start, cut.at));
    // Always moves forward: nextStart returns a position > start.
    start = nextStart(body, start, cut, overlap);
  }
  return chunks;
}

function pushTrimmed(chunks: string[], piece: string): void {
  const trimmed = piece.trim();
  if (trimmed) chunks.push(trimmed);
}

/**
 * A source's chunks with their embedding input and content hash. The embedding input is the
 * title, the heading path (when there is one) and the chunk text. A source with no body but a
 * title yields one chunk whose text is the title (and whose input is title and heading path,
 * not the title twice). A source with neither yields no chunks.
 */
export function chunkSource(source: ChunkSource, embedderIdentity: string, opts?: ChunkOptions): Chunk[] {
  const headingPath = source.headingPath
    .map((h) => h.trim())
    .filter(Boolean)
    .join(' > ');
  const header = [source.title.trim(), headingPath].filter(Boolean).join('\n');
  const context = source.context?.trim() ?? '';
  // A context joins the hash only when there is one, so a chunk without it keeps its hash.
  const hashed = context ? { ...source.metadata, context } : source.metadata;
  const texts = chunkText(source.body, opts);
  const pieces =
    texts.length > 0
      ? texts.map((text) => ({ text, embedInput: header ? `${header}\n\n${text}` : text }))
      : source.title.trim()
        ? [{ text: source.title.trim(), embedInput: header }]
        : [];
  return pieces.map(({ text, embedInput }, ordinal) => ({
    ordinal,
    headingPath,
    text,
    embedInput,
    context,
    contentHash: chunkContentHash(embedderIdentity, embedInput, hashed),
  }));
}

/**
 * What BM25 indexes of a chunk (a ChunkPoint's `text` and `header`): its embedding input with
 * the source's context words before it, the context counted as header. Only BM25 reads the
 * context: measured with `npm run eval` (docs/eval.md, session 7), path words lifted recall in
 * BM25 and lowered it in the embedder's input, where they add the same words to every section
 * of a file.
 *
 * @example lexicalFields('Mempool — Config\n\nThe size limit…', 'The size limit…', 'core mempool')
 * // → { text: 'core mempool\nMempool — Config\n\nThe size limit…', header: 'core mempool\nMempool — Config' }
 */
export function lexicalFields(embedInput: string, text: string, context: string): { text: string; header: string } {
  const header = embedHeader(embedInput, text);
  if (!context) return { text: embedInput, header };
  return { text: `${context}\n${embedInput}`, header: header ? `${context}\n${header}` : context };
}

/**
 * lexicalFields' `text` as BM25 terms, from the embedding input's: tokenize(`${context}\n${embedInput}`)
 * is tokenize(context) then tokenize(embedInput), since a line break ends a word. So a chunk is
 * tokenized once for its embedder and BM25 (chunk-points.ts).
 */
export function lexicalTerms(embedTerms: readonly string[], context: string): readonly string[] {
  return context ? [...tokenize(context), ...embedTerms] : embedTerms;
}

/**
 * The header of a chunk's embedding input as chunkSource builds it: the title and heading path
 * before the chunk's own text, which BM25 weighs more (tokenize.ts's HEADER_WEIGHT). A source
 * with no body has a chunk that is all header (its text is its title); a chunk with no header
 * (a blank title and no heading path) has none.
 *
 * @example embedHeader('Mempool — Config\nMempool\n\nThe size limit…', 'The size limit…') // → 'Mempool — Config\nMempool'
 */
export function embedHeader(embedInput: string, text: string): string {
  const suffix = `\n\n${text}`;
  if (embedInput.endsWith(suffix)) return embedInput.slice(0, -suffix.length);
  return embedInput === text ? '' : embedInput;
}

/** sha256 hex over the canonical JSON of what decides a chunk's vector and payload. */
export function chunkContentHash(embedderIdentity: string, embedInput: string, metadata: Record<string, unknown>): string {
  const canonical = canonicalJson({ embedder: embedderIdentity, input: embedInput, metadata });
  return createHash('sha256').update(canonical, 'utf8').digest('hex');
}
