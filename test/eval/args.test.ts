// The eval's command line: `--shared` runs every committed query set over each shared corpus
// (one boot per corpus), repeated `--queries` after one `--corpus` do the same for any tree,
// `--without-code-terms` turns the edit asks' code evidence off, and every committed set parses
// (an edit ask only as its hook event would phrase it).
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
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
  it('--shared runs sets A, B and C and both sets of edit asks over each shared corpus, the fixture first', () => {
    const args = parseArgs(['--shared', shared], root);
    expect(args.corpora.map((c) => path.basename(c.corpus))).toEqual(['ledger', 'cometbft-docs', 'cortex-docs']);
    expect(args.corpora[0]!.queries).toEqual([]);
    for (const c of args.corpora.slice(1)) {
      const name = path.basename(c.corpus);
      expect(c.queries).toEqual([
        { file: path.join(root, 'eval', 'queries', `${name}.json`), name: undefined },
        { file: path.join(root, 'eval', 'queries', `${name}-b.json`), name: 'set B' },
        { file: path.join(root, 'eval', 'queries', `${name}-c.json`), name: 'set C' },
        { file: path.join(root, 'eval', 'queries', `${name.replace(/-docs$/, '')}-edits.json`), name: 'edits' },
        { file: path.join(root, 'eval', 'queries', `${name.replace(/-docs$/, '')}-edits-b.json`), name: 'edits B' },
      ]);
    }
  });

  it('--without-code-terms turns the code evidence off; it is on by default', () => {
    expect(parseArgs(['--shared', shared, '--without-code-terms'], root).withoutCodeTerms).toBe(true);
    expect(parseArgs([], root).withoutCodeTerms).toBe(false);
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

  it('every committed set parses: sets A to C ask all four kinds, the edit sets edits with their code terms', async () => {
    for (const c of SHARED_CORPORA) {
      for (const q of c.queries) {
        const queries = await readQueries(path.join(root, q.file));
        const edits = q.name?.startsWith('edits') ?? false;
        expect(new Set(queries.map((x) => x.kind)), q.file).toEqual(new Set(edits ? ['edit'] : ['lexical', 'paraphrase', 'path', 'multi']));
        for (const x of queries) expect(x.codeTerms?.length ?? 0, `${q.file} ${x.id}`)[edits ? 'toBeGreaterThan' : 'toBe'](0);
      }
    }
  });

  it('refuses an edit ask whose about is not what the hook would say', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'doco-eval-edit-'));
    const file = path.join(dir, 'edits.json');
    const hook = { agent: 'claude-code', tool_name: 'Edit', tool_input: { old_string: 'a := 1', new_string: 'timeoutCommit := 2' } };
    const ask = { id: 'e1', kind: 'edit', touching: ['config/config.go'], hook, relevant: ['docs/x.md#y'] };
    await writeFile(file, JSON.stringify([{ ...ask, about: 'Edit config/config.go: timeoutCommit := 2' }]));
    expect((await readQueries(file))[0]!.codeTerms).toEqual(['timeoutCommit']);
    await writeFile(file, JSON.stringify([{ ...ask, about: 'change the commit timeout' }]));
    await expect(readQueries(file)).rejects.toThrow(/e1: the hook phrases this ask as "Edit config\/config.go: timeoutCommit := 2"/);
    await rm(dir, { recursive: true, force: true });
  });
});
