// The eval's command line: `--shared` runs both committed query sets over each shared corpus
// (one boot per corpus), repeated `--queries` after one `--corpus` do the same for any tree, and
// every committed set parses.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseArgs, SHARED_CORPORA, UsageError } from '../../eval/args.js';
import { readQueries } from '../../eval/queries.js';
import { findProjectRoot } from '../../src/lib/project-root.js';

const root = findProjectRoot();
let shared: string;

beforeAll(async () => {
  shared = await mkdtemp(path.join(os.tmpdir(), 'doco-eval-args-'));
  for (const c of SHARED_CORPORA) await mkdir(path.join(shared, c.dir));
});
afterAll(() => rm(shared, { recursive: true, force: true }));

describe('eval arguments', () => {
  it('--shared runs sets A, B and C over each shared corpus, the fixture first', () => {
    const args = parseArgs(['--shared', shared], root);
    expect(args.corpora.map((c) => path.basename(c.corpus))).toEqual(['ledger', 'cometbft-docs', 'cortex-docs']);
    expect(args.corpora[0]!.queries).toEqual([]);
    for (const c of args.corpora.slice(1)) {
      const name = path.basename(c.corpus);
      expect(c.queries).toEqual([
        { file: path.join(root, 'eval', 'queries', `${name}.json`), name: undefined },
        { file: path.join(root, 'eval', 'queries', `${name}-b.json`), name: 'set B' },
        { file: path.join(root, 'eval', 'queries', `${name}-c.json`), name: 'set C' },
      ]);
    }
  });

  it('--features names the feature dump, off by default', () => {
    expect(parseArgs(['--shared', shared, '--features', 'pool.json'], root).features).toBe('pool.json');
    expect(parseArgs([], root).features).toBeUndefined();
    expect(() => parseArgs(['--features'], root)).toThrow(UsageError);
  });

  it('repeated --queries after one --corpus become sets over that corpus, the later ones named by file', () => {
    const args = parseArgs(['--corpus', 'docs', '--queries', 'a.json', '--queries', 'more/b.json', '--corpus', 'other'], root);
    expect(args.corpora).toEqual([
      {
        corpus: 'docs',
        queries: [
          { file: 'a.json', name: undefined },
          { file: 'more/b.json', name: 'b' },
        ],
        records: undefined,
      },
      { corpus: 'other', queries: [], records: undefined },
    ]);
  });

  it('refuses --queries before any --corpus and a --shared without the corpora', () => {
    expect(() => parseArgs(['--queries', 'a.json'], root)).toThrow(UsageError);
    expect(() => parseArgs(['--shared', path.join(shared, 'missing')], root)).toThrow(/no cometbft-docs there/);
  });

  it('every committed set parses and asks all four kinds', async () => {
    for (const c of SHARED_CORPORA) {
      for (const q of c.queries) {
        const queries = await readQueries(path.join(root, q.file));
        expect(new Set(queries.map((x) => x.kind)), q.file).toEqual(new Set(['lexical', 'paraphrase', 'path', 'multi']));
      }
    }
  });
});
