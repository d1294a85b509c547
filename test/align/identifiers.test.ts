// Reading diffs for the alignment scan: a whole `git diff` split per file (renames, deletions,
// header-looking lines inside hunks), a patch's added and removed lines and hunk contexts, and
// the identifiers a change moves, with their spellings.
import { describe, expect, it } from 'vitest';
import { patchLines, splitGitDiff } from '../../src/align/diff.js';
import { changedIdentifiers, spellings } from '../../src/align/identifiers.js';

const GIT_DIFF = [
  'diff --git a/consensus/wal.go b/consensus/wal.go',
  'index 1111111..2222222 100644',
  '--- a/consensus/wal.go',
  '+++ b/consensus/wal.go',
  '@@ -1,3 +1,3 @@ func (w *WAL) Write(msg Message) error {',
  '--- a removed line that looks like a header',
  '+++ an added line that looks like a header',
  ' context',
  'diff --git a/old/name.go b/new/name.go',
  'similarity index 90%',
  'rename from old/name.go',
  'rename to new/name.go',
  'diff --git a/gone.go b/gone.go',
  'deleted file mode 100644',
  '--- a/gone.go',
  '+++ /dev/null',
  '@@ -1 +0,0 @@',
  '-package gone',
].join('\n');

describe('diffs', () => {
  it('splits a git diff per file: a rename under its new path, a deletion under its old one, hunk lines kept', () => {
    const files = splitGitDiff(GIT_DIFF);
    expect(files.map((f) => f.path)).toEqual(['consensus/wal.go', 'new/name.go', 'gone.go']);
    expect(files[1]!.patch).toBeUndefined();
    expect(patchLines(files[0]!.patch!)).toEqual({
      added: ['++ an added line that looks like a header'],
      removed: ['-- a removed line that looks like a header'],
      contexts: ['func (w *WAL) Write(msg Message) error {'],
    });
    expect(patchLines(files[2]!.patch!).removed).toEqual(['package gone']);
  });
});

describe('identifiers', () => {
  it("finds the names a change moves: removed, modified, added, and the hunk's enclosing function; not keywords or plain words", () => {
    const patch = [
      '@@ -10,6 +10,7 @@ func DefaultConsensusConfig() *ConsensusConfig {',
      '-\t\tTimeoutCommit: 1000 * time.Millisecond,',
      '+\t\tTimeoutCommit: 500 * time.Millisecond,',
      '-func validateBlock(state State) error {',
      '+\tif cfg.tx_index.indexer == "kv" { return nil }',
      '+var ErrNopMempool = errors.New("the nop mempool does not accept transactions")',
    ].join('\n');
    const ids = changedIdentifiers('config/config.go', patch);
    const byName = new Map(ids.map((i) => [i.name, i]));
    expect(byName.get('TimeoutCommit')).toMatchObject({ change: 'modified', defined: true });
    expect(byName.get('validateBlock')).toMatchObject({ change: 'removed', defined: true });
    expect(byName.get('ErrNopMempool')).toMatchObject({ change: 'added', defined: true });
    expect(byName.get('DefaultConsensusConfig')).toMatchObject({ change: 'context' });
    expect(byName.get('tx_index.indexer')).toMatchObject({ change: 'added' });
    for (const plain of ['func', 'time', 'state', 'return', 'nil', 'the', 'mempool', 'errors'])
      expect(byName.has(plain), plain).toBe(false);
    // A removed definition says more than an added one.
    expect(byName.get('validateBlock')!.weight).toBeGreaterThan(byName.get('ErrNopMempool')!.weight);
  });

  it('reads nothing from prose files: their words are not identifiers', () => {
    expect(changedIdentifiers('docs/config.md', '@@ -1 +1 @@\n-Set TimeoutCommit low.\n+Set TimeoutCommit high.')).toEqual([]);
  });

  it('spells a name the ways docs write it', () => {
    expect(spellings('TimeoutCommit')).toEqual(['timeoutcommit', 'timeout_commit', 'timeout-commit']);
    expect(spellings('timeout_commit')).toEqual(['timeout_commit', 'timeout-commit', 'timeoutcommit']);
    expect(spellings('NewRPCFunc')).toContain('new_rpc_func');
    expect(spellings('Recheck')).toEqual(['recheck']);
  });
});
