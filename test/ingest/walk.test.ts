// readDocTree: the watched set read into the ingester's file list, a failed read turned into a
// FileRead error (the read injected), runs forced to named files, and paths that are refused.
import { execFileSync } from 'node:child_process';
import { readFile, symlink, truncate } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_DOC_FILE_BYTES, readDocFile, readDocFileSync } from '../../src/ingest/docs/tree.js';
import { onlyPath, readDocTree, WalkError } from '../../src/ingest/docs/walk.js';
import { makeTree, prose, removeTree } from '../helpers/docs.js';

let root: string;
beforeAll(async () => {
  root = await makeTree({
    'CLAUDE.md': `## Rules\n\n${prose('rule')}`,
    'docs/a.md': `## A\n\n${prose('a')}\n\n## Tiny\n\nshort`,
    'docs/b.md': `## B\n\n${prose('b')}\n\n## B\n\n${prose('b again')}`,
  });
});
afterAll(async () => removeTree(root));

describe('readDocTree', () => {
  it('lists each watched file with its sections, and counts what the floor dropped and what repeated', async () => {
    const tree = await readDocTree(root);
    expect(tree.files.map((f) => [f.path, 'sections' in f ? f.sections.map((s) => s.section_key) : f.error])).toEqual([
      ['CLAUDE.md', ['CLAUDE.md#rules']],
      ['docs/a.md', ['docs/a.md#a']],
      ['docs/b.md', ['docs/b.md#b', 'docs/b.md#b-2']],
    ]);
    expect(tree).toMatchObject({ sections: 4, belowFloor: 1, truncated: 0, repeated: ['docs/b.md#b'] });
  });

  it("does not count an intro that is only the document's # title as dropped by the floor", async () => {
    const tree = await readDocTree(root, { read: async () => `# Title\n\n## A\n\n${prose('a')}` });
    expect(tree).toMatchObject({ sections: 3, belowFloor: 0 });
  });

  it('turns a failed read into a FileRead error and reads the other files', async () => {
    const tree = await readDocTree(root, {
      read: async (rel) => {
        if (rel === 'docs/a.md') throw new Error('EACCES: permission denied');
        return readFile(path.join(root, rel), 'utf8');
      },
    });
    expect(tree.files).toContainEqual({ path: 'docs/a.md', error: 'EACCES: permission denied' });
    expect(tree.files.filter((f) => 'sections' in f).map((f) => f.path)).toEqual(['CLAUDE.md', 'docs/b.md']);
  });

  it('reads only the named files when forced to a subset', async () => {
    const seen: string[] = [];
    const tree = await readDocTree(root, {
      only: ['./docs/b.md'],
      read: async (rel) => (seen.push(rel), readFile(path.join(root, rel), 'utf8')),
    });
    expect(seen).toEqual(['docs/b.md']);
    expect(tree.files.map((f) => f.path)).toEqual(['docs/b.md']);
  });

  it('lists a named file that does not exist as seen with no sections, not as a failed read', async () => {
    const tree = await readDocTree(root, { only: ['docs/gone.md'] });
    expect(tree.files).toEqual([{ path: 'docs/gone.md', sections: [] }]);
  });

  it('refuses a root it cannot read', async () => {
    await expect(readDocTree(path.join(root, 'missing'))).rejects.toBeInstanceOf(WalkError);
  });
});

describe('reading one file', () => {
  it('reads a regular file in this thread as through promises, and refuses a FIFO or a link in the last step', async () => {
    const file = path.join(root, 'docs', 'a.md');
    expect(readDocFileSync(file)).toBe(await readDocFile(file));
    const fifo = path.join(root, 'fifo.md');
    execFileSync('mkfifo', [fifo]);
    expect(() => readDocFileSync(fifo)).toThrow('not a regular file');
    const link = path.join(root, 'link.md');
    await symlink(file, link);
    expect(() => readDocFileSync(link)).toThrow(/ELOOP/);
  });

  it('reads no file past MAX_DOC_FILE_BYTES: it is unreadable, its neighbours read', async () => {
    const big = await makeTree({ 'docs/a.md': `## A\n\n${prose('a')}`, 'docs/huge.md': '' });
    try {
      // Sparse: the size a stat reports without the bytes on disk.
      await truncate(path.join(big, 'docs', 'huge.md'), MAX_DOC_FILE_BYTES + 1);
      const huge = path.join(big, 'docs', 'huge.md');
      expect(() => readDocFileSync(huge)).toThrow(`${MAX_DOC_FILE_BYTES + 1} bytes, past the ${MAX_DOC_FILE_BYTES}`);
      await expect(readDocFile(huge)).rejects.toThrow('past the');
      const tree = await readDocTree(big);
      expect(tree.files.map((f) => [f.path, 'error' in f])).toEqual([
        ['docs/a.md', false],
        ['docs/huge.md', true],
      ]);
      // At the limit, it is read.
      await truncate(huge, MAX_DOC_FILE_BYTES);
      expect(readDocFileSync(huge)).toHaveLength(MAX_DOC_FILE_BYTES);
    } finally {
      await removeTree(big);
    }
  });
});

describe('onlyPath', () => {
  it('makes a named file repository-relative with forward slashes', () => {
    expect(onlyPath(root, './docs/a.md')).toBe('docs/a.md');
    expect(onlyPath(root, path.join(root, 'docs', 'a.md'))).toBe('docs/a.md');
    expect(onlyPath(root, 'repos/api/README.md')).toBe('repos/api/README.md');
  });

  it('refuses a file outside the root or outside the watched set', () => {
    expect(() => onlyPath(root, '../elsewhere/docs/a.md')).toThrow(/not inside/);
    expect(() => onlyPath(root, 'docs/archive/old.md')).toThrow(/not a watched document/);
    expect(() => onlyPath(root, 'docs/.drafts/x.md')).toThrow(/not a watched document/);
    expect(() => onlyPath(root, 'notes.md')).toThrow(/not a watched document/);
    expect(() => onlyPath(root, 'docs/a.txt')).toThrow(/not a watched document/);
    expect(() => onlyPath(root, 'repos/api/docs/a.md')).toThrow(/not a watched document/);
  });
});
