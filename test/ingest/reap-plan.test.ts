// planReap alone (no database): which keys a run retracts, the guards that hold keys back, and
// where the refusals start.
import { describe, expect, it } from 'vitest';
import { planReap, type ManifestKey } from '../../src/ingest/docs/reap.js';
import type { FileRead } from '../../src/ingest/docs/types.js';

const key = (path: string, slug: string): ManifestKey => ({ section_key: `${path}#${slug}`, path, node_id: `reference_${slug}` });
const manifest = [
  key('docs/a.md', 'one'),
  key('docs/a.md', 'two'),
  key('docs/sub/b.md', 'one'),
  key('docs/sub/b.md', 'two'),
  key('docs/sub/deeper/c.md', 'one'),
  key('docs/c.md', 'one'),
  key('README.md', 'intro'),
  key('CLAUDE.md', 'intro'),
];
const read = (path: string): FileRead => ({ path, sections: [] });
const allBut = (...gone: string[]) => new Set(manifest.map((m) => m.section_key).filter((k) => !gone.includes(k)));
const files = [read('docs/a.md'), read('docs/c.md'), read('README.md')];

describe('planReap', () => {
  it('reaps the keys not seen', () => {
    const plan = planReap({ manifest, seen: allBut('docs/a.md#two'), files });
    expect(plan).toEqual({ outcome: 'reaped', reason: null, keys: [key('docs/a.md', 'two')] });
  });

  it('keeps everything under a directory that could not be listed', () => {
    const plan = planReap({
      manifest,
      seen: allBut('docs/sub/b.md#one', 'docs/sub/deeper/c.md#one', 'docs/c.md#one'),
      files: [...files, { path: 'docs/sub/', error: 'EACCES' }],
    });
    expect(plan.keys).toEqual([key('docs/c.md', 'one')]);
    expect(plan.outcome).toBe('reaped');
  });

  it('does not take a file for the directory of the same name', () => {
    const plan = planReap({ manifest, seen: allBut('docs/a.md#one'), files: [...files, { path: 'docs/a', error: 'EIO' }] });
    expect(plan.keys).toEqual([key('docs/a.md', 'one')]);
  });

  it('compares the reap with the whole pre-existing manifest, forced to a subset or not', () => {
    const two = planReap({ manifest, seen: allBut('docs/a.md#one', 'docs/a.md#two'), files: [read('docs/a.md')], only: ['docs/a.md'] });
    expect(two.outcome).toBe('reaped');
    const three = planReap({
      manifest,
      seen: allBut('docs/a.md#one', 'docs/a.md#two', 'README.md#intro'),
      files,
      only: ['docs/a.md', 'README.md'],
    });
    expect(three.outcome).toBe('refused');
    expect(three.keys).toHaveLength(3);
  });

  it('refuses on an empty document list, but has nothing to refuse when nothing would be reaped', () => {
    expect(planReap({ manifest, seen: allBut('CLAUDE.md#intro'), files: [] }).outcome).toBe('refused');
    expect(planReap({ manifest: [], seen: new Set(), files: [] })).toEqual({ outcome: 'nothing_to_reap', reason: null, keys: [] });
  });
});
