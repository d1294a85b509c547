// The tokenizer's ASCII fast path must give exactly the terms of the Unicode path (the one the
// index was built with: TOKENIZER_VERSION is in every chunk hash). The reference below is that
// path written out independently; real Markdown from node_modules and edge cases are compared.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bm25TermWeight, HEADER_WEIGHT, sparseDocumentVector, stem, termIndex, tokenize } from '../../src/text/tokenize.js';

const STOP = new Set(
  (
    'a an and are as at be been but by can could did do does for from had has have how i if in into is it its ' +
    'may might must no not of on or our should so such than that the their them then there these they this ' +
    'those to was we were what when where which while who why will with would you your'
  ).split(' '),
);

function reference(text: string): string[] {
  const out: string[] = [];
  for (const raw of text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .split(/[^\p{L}\p{N}]+/u)) {
    if (!raw) continue;
    const parts = raw.split(/(?<=\p{Ll})(?=\p{Lu})/u);
    for (const w of parts.length > 1 ? [raw, ...parts] : [raw]) {
      const lower = w.toLowerCase();
      if ((lower.length < 2 && !/\d/.test(lower)) || STOP.has(lower)) continue;
      out.push(stem(lower));
    }
  }
  return out;
}

function markdownUnder(dir: string, limit: number): string[] {
  const files: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      if (files.length >= limit) return;
      const p = path.join(d, name);
      const s = statSync(p);
      if (s.isDirectory()) walk(p);
      else if (name.endsWith('.md') && s.size < 200_000) files.push(p);
    }
  };
  walk(dir);
  return files;
}

describe('tokenize', () => {
  it('matches the Unicode reference on edge cases', () => {
    const cases = [
      'Refunds over $500 need an owner',
      'billing.tsx state_sync consensus/wal.go',
      'parseHTTPRequest getURLForID iOS',
      'a I x9 9 v2 B2B h264 ABCdef abcDEF',
      'camelCaseWord3Parts mixedCase9Digits',
      'processes caches sizes is us',
      '',
      '   ',
      '---',
      'x',
      "don't won't it's",
      'the and of',
      'A1b2C3',
      'HTTPServer2Go',
    ];
    for (const c of cases) expect(tokenize(c), c).toEqual(reference(c));
  });

  it('matches the Unicode reference on real Markdown', () => {
    const files = markdownUnder(path.join(process.cwd(), 'node_modules'), 400);
    expect(files.length).toBeGreaterThan(50);
    for (const f of files) {
      const text = readFileSync(f, 'utf8');
      expect(tokenize(text), f).toEqual(reference(text));
    }
  });

  it('folds accents and splits non-ASCII text as before', () => {
    for (const c of [
      'Café naïve Über résumé',
      'Mempool — Overview',
      'x™ y℃ ½ ﬁle ǅungla naïveTest ÜberCool',
      'a—b–c d’e «quoted» 日本語 テスト',
      'Straße ΑΒΓ αβγ δοκιμή',
    ]) {
      expect(tokenize(c), c).toEqual(reference(c));
    }
    expect(tokenize('Café')).toEqual(['cafe']);
  });
});

describe('sparseDocumentVector', () => {
  const weightOf = (v: { indices: number[]; values: number[] }, term: string) => v.values[v.indices.indexOf(termIndex(term))];

  it("counts a header term HEADER_WEIGHT times, a body term once, at the text's own length", () => {
    const text = 'Mempool size\n\nThe limit on pending transactions, in bytes and in count.';
    const terms = tokenize(text).length;
    const v = sparseDocumentVector(text, 'Mempool size');
    expect(HEADER_WEIGHT).toBeGreaterThan(1);
    expect(weightOf(v, 'mempool')).toBeCloseTo(bm25TermWeight(HEADER_WEIGHT, terms), 6);
    expect(weightOf(v, 'limit')).toBeCloseTo(bm25TermWeight(1, terms), 6);
    expect(weightOf(v, 'mempool')).toBeGreaterThan(weightOf(v, 'limit')!);
  });

  it('adds the weight to the tf a header term also has in the body', () => {
    const text = 'Refunds\n\nRefunds are issued within 14 days; partial refunds need approval.';
    expect(weightOf(sparseDocumentVector(text, 'Refunds'), 'refund')).toBeCloseTo(
      bm25TermWeight(3 + HEADER_WEIGHT - 1, tokenize(text).length),
      6,
    );
  });

  it('is the plain BM25 vector without a header', () => {
    const text = 'Mempool size\n\nThe limit on pending transactions.';
    const v = sparseDocumentVector(text);
    expect(weightOf(v, 'mempool')).toBeCloseTo(weightOf(v, 'limit')!, 6);
    expect(sparseDocumentVector(text, '')).toEqual(v);
  });

  it("gives the vector of its text when handed the text's terms", () => {
    for (const text of ['Mempool size\n\nThe limit on pending transactions, in bytes.', 'Refunds\n\nRefunds are issued; café Über.', '']) {
      const header = text.split('\n\n')[0]!;
      expect(sparseDocumentVector(text, header, tokenize(text))).toEqual(sparseDocumentVector(text, header));
    }
  });

  it('sums terms whose indices collide in the order they first occur, as a Map of indices did', () => {
    // Two words with a digit (terms as they are, never stemmed) whose FNV-1a indices collide,
    // found by a search over `q<base 36>9` words.
    const same = ['q15wzx9', 'q1c6cd9'];
    expect(termIndex(same[0]!)).toBe(termIndex(same[1]!));
    const text = `alpha9 ${same[1]} beta9 ${same[0]} ${same[1]} gamma9 ${same[0]} ${same[0]}`;
    // The weights summed as the code before the packed sort did: a Map of indices in first-occurrence order.
    const terms = tokenize(text);
    const tf = new Map<string, number>();
    for (const term of terms) tf.set(term, (tf.get(term) ?? 0) + 1);
    const weights = new Map<number, number>();
    for (const [term, n] of tf) weights.set(termIndex(term), (weights.get(termIndex(term)) ?? 0) + bm25TermWeight(n, terms.length));
    const indices = [...weights.keys()].sort((a, b) => a - b);
    const v = sparseDocumentVector(text);
    expect(v).toEqual({ indices, values: indices.map((i) => weights.get(i)!) });
    expect(v.indices).toHaveLength(4);
  });

  it('gives the same terms however many words it has seen before (its memo of words is bounded)', () => {
    const text = 'Refunds in stateSync: the StateSync worker retries 3 refunds; V2Cache caches IDs x.';
    const first = tokenize(text);
    expect(first).toEqual(reference(text));
    // More distinct words than the memo holds, some of them spelled like the text's.
    const many = Array.from({ length: 120_000 }, (_, i) => `w${i.toString(36)}x refunds${i % 3 ? '' : 'Sync'}`).join(' ');
    expect(tokenize(many)).toEqual(reference(many));
    expect(tokenize(text)).toEqual(first);
  });
});
