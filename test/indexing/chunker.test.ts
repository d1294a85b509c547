// The chunker: where it cuts, how much context consecutive chunks share, that chunks stay
// within size and whole code points, and what the content hash is sensitive to.
import { describe, expect, it } from 'vitest';
import { chunkSource, chunkText, embedHeader, type ChunkSource } from '../../src/indexing/chunker.js';

/** "w0000 w0001 …": every word unique and recognisable, so a word cut in half shows. */
const words = (from: number, count: number) => Array.from({ length: count }, (_, i) => `w${String(from + i).padStart(4, '0')}`);
const WHOLE_WORD = /^w\d{4}[.,]?$/;

/** Sentences of ten numbered words each. */
const sentences = (from: number, count: number) => Array.from({ length: count }, (_, i) => `${words(from + i * 10, 10).join(' ')}.`);

/** The longest prefix of `b` that `a` ends with. */
function sharedContext(a: string, b: string): number {
  for (let k = Math.min(a.length, b.length); k > 0; k--) if (a.endsWith(b.slice(0, k))) return k;
  return 0;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('chunkText', () => {
  it('gives nothing for an empty or blank body', () => {
    expect(chunkText('')).toEqual([]);
    expect(chunkText(' \n\n\t  \n')).toEqual([]);
  });

  it('keeps a body of at most the size as exactly one chunk', () => {
    const body = 'x'.repeat(1599) + '.';
    expect(chunkText(body)).toEqual([body]);
    expect(chunkText('  Short note.\n')).toEqual(['Short note.']);
  });

  it('cuts at a paragraph boundary rather than a later line boundary', () => {
    const first = Array.from({ length: 20 }, (_, i) => `first ${words(i * 8, 8).join(' ')}`).join('\n');
    const second = Array.from({ length: 20 }, (_, i) => `second ${words(200 + i * 8, 8).join(' ')}`).join('\n');
    expect(first.length).toBeGreaterThan(800);
    expect(first.length).toBeLessThan(1600);
    const chunks = chunkText(`${first}\n\n${second}`);
    // The window holds lines of the second paragraph too, but the blank line wins.
    expect(chunks[0]).toBe(first);
  });

  it('cuts at a line boundary rather than a later sentence boundary', () => {
    const lines = Array.from({ length: 30 }, (_, i) => `${sentences(i * 100, 3).join(' ')}`);
    const body = lines.join('\n');
    const chunks = chunkText(body);
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks.slice(0, -1)) {
      expect(lines).toContain(chunk.split('\n').at(-1));
    }
  });

  it('cuts a long paragraph without newlines at sentence ends', () => {
    const body = sentences(0, 120).join(' ');
    expect(body).not.toContain('\n');
    expect(body.length).toBeGreaterThan(7000);
    const chunks = chunkText(body);
    expect(chunks.length).toBeGreaterThanOrEqual(5);
    for (const chunk of chunks) {
      expect(chunk.length).toBeLessThanOrEqual(1600);
      expect(chunk.endsWith('.')).toBe(true);
      expect(chunk.split(' ').every((w) => WHOLE_WORD.test(w))).toBe(true);
    }
  });

  it('falls back to word boundaries and never cuts a word in half', () => {
    const body = words(0, 2000).join(' ');
    const chunks = chunkText(body);
    expect(chunks.length).toBeGreaterThan(5);
    for (const chunk of chunks) {
      expect(chunk.length).toBeLessThanOrEqual(1600);
      expect(chunk.split(' ').every((w) => WHOLE_WORD.test(w))).toBe(true);
    }
    // Every word survives, in order.
    const seen = new Set(chunks.flatMap((c) => c.split(' ')));
    expect(seen.size).toBe(2000);
  });

  it('repeats about `overlap` characters of context, starting at a boundary', () => {
    const paragraphs = Array.from({ length: 12 }, (_, p) =>
      Array.from({ length: 4 }, (_, l) => sentences(p * 100 + l * 20, 2).join(' ')).join('\n'),
    );
    for (const body of [sentences(0, 150).join(' '), words(0, 3000).join(' '), paragraphs.join('\n\n')]) {
      const chunks = chunkText(body);
      expect(chunks.length).toBeGreaterThan(2);
      for (let i = 1; i < chunks.length; i++) {
        const shared = sharedContext(chunks[i - 1]!, chunks[i]!);
        expect(shared).toBeGreaterThanOrEqual(80);
        expect(shared).toBeLessThanOrEqual(200);
        expect(chunks[i]!.split(/\s+/).every((w) => WHOLE_WORD.test(w))).toBe(true);
      }
    }
  });

  it('shares nothing when overlap is 0, and covers the text exactly once', () => {
    const body = words(0, 1000).join(' ');
    const chunks = chunkText(body, { size: 500, overlap: 0 });
    expect(chunks.join(' ')).toBe(body);
  });

  it('never exceeds the size, whatever the mix of separators', () => {
    const pieces = ['alpha beta', '.', ' ', '\n', '\n\n', 'gamma', '! ', 'x'.repeat(90), '\r\n', '\t'];
    let seed = 7;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
    const body = Array.from({ length: 4000 }, () => pieces[next() % pieces.length]).join('');
    for (const size of [50, 200, 1600]) {
      const chunks = chunkText(body, { size, overlap: Math.floor(size / 8) });
      expect(chunks.length).toBeGreaterThan(1);
      for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(size);
    }
  });

  it('cuts a word longer than the size hard, at the size', () => {
    const body = `start ${'y'.repeat(5000)} end`;
    const chunks = chunkText(body);
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(1600);
    expect(chunks.some((c) => c.length === 1600)).toBe(true);
    expect(chunks.join('').replace(/\s+/g, '')).toContain('start');
    expect(chunks.at(-1)!.endsWith('end')).toBe(true);
  });

  it('never splits a surrogate pair', () => {
    // An odd prefix puts every hard cut (at 1,600 and at 1,600 − 200) inside a pair.
    for (const body of ['x' + '😀'.repeat(3000), 'x' + '𝒳'.repeat(1000) + ' 𝒴 '.repeat(700)]) {
      const chunks = chunkText(body);
      expect(chunks.length).toBeGreaterThan(2);
      for (const chunk of chunks) {
        expect(LONE_SURROGATE.test(chunk)).toBe(false);
        expect(chunk.length).toBeLessThanOrEqual(1600);
      }
    }
  });

  it('is deterministic', () => {
    const body = sentences(0, 200).join(' ');
    expect(chunkText(body)).toEqual(chunkText(body));
  });

  it('refuses sizes and overlaps that cannot make progress', () => {
    expect(() => chunkText('abc', { size: 0 })).toThrow(RangeError);
    expect(() => chunkText('abc', { size: 100, overlap: 60 })).toThrow(RangeError);
    expect(() => chunkText('abc', { size: 100, overlap: -1 })).toThrow(RangeError);
  });
});

describe('chunkSource', () => {
  const source = (over: Partial<ChunkSource> = {}): ChunkSource => ({
    title: 'Refund policy',
    headingPath: ['Billing', 'Refunds'],
    body: 'Refunds are issued within 14 days.',
    metadata: { nodeId: 'rule_01', tags: ['billing'], nested: { a: 1, b: [1, 2] } },
    ...over,
  });

  it('builds the embedding input from title, heading path and text', () => {
    const [chunk, ...rest] = chunkSource(source(), 'local-hash-v1/256');
    expect(rest).toEqual([]);
    expect(chunk).toMatchObject({
      ordinal: 0,
      headingPath: 'Billing > Refunds',
      text: 'Refunds are issued within 14 days.',
      embedInput: 'Refund policy\nBilling > Refunds\n\nRefunds are issued within 14 days.',
    });
    expect(chunk!.contentHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('omits an empty heading path', () => {
    const [chunk] = chunkSource(source({ headingPath: [] }), 'e');
    expect(chunk!.embedInput).toBe('Refund policy\n\nRefunds are issued within 14 days.');
    expect(chunk!.headingPath).toBe('');
  });

  it('numbers the chunks of a long body and prefixes each with the header', () => {
    const chunks = chunkSource(source({ body: sentences(0, 100).join(' ') }), 'e');
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks.map((c) => c.ordinal)).toEqual(chunks.map((_, i) => i));
    for (const c of chunks) expect(c.embedInput).toBe(`Refund policy\nBilling > Refunds\n\n${c.text}`);
    expect(new Set(chunks.map((c) => c.contentHash)).size).toBe(chunks.length);
  });

  it('gives a title-only source one chunk of its title, and an empty one none', () => {
    const [chunk, ...rest] = chunkSource(source({ body: '  \n' }), 'e');
    expect(rest).toEqual([]);
    expect(chunk!.text).toBe('Refund policy');
    expect(chunk!.embedInput).toBe('Refund policy\nBilling > Refunds');
    expect(chunkSource(source({ title: '', body: '' }), 'e')).toEqual([]);
  });

  it("tells each chunk's header (title and heading path) from its text", () => {
    for (const c of chunkSource(source({ body: sentences(0, 100).join(' ') }), 'e'))
      expect(embedHeader(c.embedInput, c.text)).toBe('Refund policy\nBilling > Refunds');
    const [plain] = chunkSource(source({ headingPath: [] }), 'e');
    expect(embedHeader(plain!.embedInput, plain!.text)).toBe('Refund policy');
    // A title-only source is all header; a source with a blank title and no heading path has none.
    const [titleOnly] = chunkSource(source({ body: '' }), 'e');
    expect(embedHeader(titleOnly!.embedInput, titleOnly!.text)).toBe('Refund policy\nBilling > Refunds');
    const [headless] = chunkSource(source({ title: ' ', headingPath: [], body: 'Para one.\n\nPara two.' }), 'e');
    expect(embedHeader(headless!.embedInput, headless!.text)).toBe('');
  });

  it('hashes deterministically, whatever the order of metadata keys', () => {
    const a = chunkSource(source(), 'e');
    const b = chunkSource(source({ metadata: { nested: { b: [1, 2], a: 1 }, tags: ['billing'], nodeId: 'rule_01' } }), 'e');
    expect(b).toEqual(a);
  });

  it('changes the hash when the embedder identity changes', () => {
    const [a] = chunkSource(source(), 'local-hash-v1/256');
    const [b] = chunkSource(source(), 'local-hash-v1/512');
    expect(b!.contentHash).not.toBe(a!.contentHash);
  });

  it('changes the hash when any part of the input text changes', () => {
    const [base] = chunkSource(source(), 'e');
    const variants = [
      source({ title: 'Refund policy v2' }),
      source({ headingPath: ['Billing'] }),
      source({ body: 'Refunds are issued within 30 days.' }),
    ];
    for (const v of variants) expect(chunkSource(v, 'e')[0]!.contentHash).not.toBe(base!.contentHash);
  });

  it('changes the hash when any metadata value changes', () => {
    const [base] = chunkSource(source(), 'e');
    const variants: Record<string, unknown>[] = [
      { nodeId: 'rule_02', tags: ['billing'], nested: { a: 1, b: [1, 2] } },
      { nodeId: 'rule_01', tags: ['billing', 'x'], nested: { a: 1, b: [1, 2] } },
      { nodeId: 'rule_01', tags: ['billing'], nested: { a: 1, b: [2, 1] } },
      { nodeId: 'rule_01', tags: ['billing'], nested: { a: '1', b: [1, 2] } },
      { nodeId: 'rule_01', tags: ['billing'], nested: { a: 1, b: [1, 2] }, extra: null },
    ];
    const hashes = variants.map((metadata) => chunkSource(source({ metadata }), 'e')[0]!.contentHash);
    expect(new Set([base!.contentHash, ...hashes]).size).toBe(variants.length + 1);
  });
});
