// "because: matched …" names the ask's own words: not the edit tool's name that opens every edit
// hook's ask, not the fragments of a touched path (that is said as "touches <path>").
import { describe, expect, it } from 'vitest';
import { explainMatch, explainPathShare, matchableWords } from '../../src/retrieval/because.js';
import { touchedNames, withTouchedNames } from '../../src/retrieval/retrieve.js';
import { EDIT_TOOL_WORDS, withoutPaths } from '../../src/text/ask-words.js';
import { GENERIC_WORDS } from '../../src/text/generic-words.js';

const RECORD = 'Refund routes: the billing app writes every refund to the ledger before it answers (see app/routes/billing.tsx).';

describe('because', () => {
  it("names the ask's words in the ask's order", () => {
    expect(explainMatch('where does a refund reach the ledger?', RECORD)).toBe("matched 'refund', 'ledger'");
  });

  it("skips the edit tool's name and a touched path's fragments", () => {
    const about = 'Write app/routes/billing.tsx: export function refund() {}';
    // As the edit hook builds its ask, before: matched 'app', 'routes', 'billing'.
    expect(explainMatch(withoutPaths(about, ['app/routes/billing.tsx']), RECORD, 3, EDIT_TOOL_WORDS)).toBe("matched 'refund'");
    // A path given whole elsewhere in the ask goes too, by its last two segments.
    expect(explainMatch(withoutPaths('Edit routes/billing.tsx', ['app/routes/billing.tsx']), RECORD, 3, EDIT_TOOL_WORDS)).toBeUndefined();
  });

  it('keeps the tool words for a search, where they are what was asked', () => {
    expect(explainMatch('write refund', RECORD)).toBe("matched 'write', 'refund'");
  });

  it('says nothing when only the path matched', () => {
    expect(
      explainMatch(withoutPaths('Write app/routes/billing.tsx', ['app/routes/billing.tsx']), RECORD, 3, EDIT_TOOL_WORDS),
    ).toBeUndefined();
  });

  it('names, of more words matched than it names, those fewest items beside it hold, in the ask order', () => {
    const about = 'the refund routes write every ledger entry before the billing answers';
    // Every item shown holds 'refund' and 'routes'; few hold 'ledger' or 'billing'.
    const heldBy = (term: string) => ({ refund: 9, route: 9, ledger: 1, billing: 2, answer: 4, write: 6 })[term] ?? 0;
    expect(explainMatch(about, RECORD)).toBe("matched 'refund', 'routes', 'write'");
    expect(explainMatch(about, RECORD, 3, new Set(), heldBy)).toBe("matched 'ledger', 'billing', 'answers'");
    // Fewer matched than it names: all of them, whatever they weigh.
    expect(explainMatch('refund ledger', RECORD, 3, new Set(), heldBy)).toBe("matched 'refund', 'ledger'");
  });

  it('names a term once, by the first word of the ask that says it', () => {
    expect(explainMatch('chunk the refunds into chunks through the ledger', RECORD)).toBe("matched 'refunds', 'ledger'");
    expect(explainMatch('refund refunds ledger', RECORD)).toBe("matched 'refund', 'ledger'");
  });

  it('names no word the caller rules out, however rare among the items', () => {
    const unnamed = new Set(['because', 'instead', 'file']);
    const ask = matchableWords('refund the ledger file because routes fail instead', unnamed);
    expect(ask.words.map((w) => w.word)).toEqual(['refund', 'ledger', 'routes', 'fail']);
    // 'because' is held by no other item, yet is never named.
    expect(explainMatch(ask, new Set(['refund', 'ledger', 'route', 'because']), 2, new Set(), () => 1)).toBe("matched 'refund', 'ledger'");
  });

  it('names no other form of a word it never names: a plural or a third person', () => {
    const ask = matchableWords('my node keeps falling behind during block sync and files updates', new Set(['update', 'file']));
    expect(ask.words.map((w) => w.word)).toEqual(['node', 'falling', 'behind', 'block', 'sync']);
    expect(matchableWords('rechecking after a block works').words.map((w) => w.word)).toEqual(['rechecking', 'block']);
  });

  it('names a hyphenated word as written when the item holds all of it, and by the parts it holds otherwise', () => {
    const text = 'Ingesters keep long-term storage on a persistent volume; queries read from it.';
    expect(explainMatch('should the long-term store use a persistent volume', text)).toBe("matched 'long-term', 'persistent', 'volume'");
    // Only a part: the part, not the word it was cut from.
    expect(explainMatch('a long-term volume', 'The term of a lease on the volume.')).toBe("matched 'term', 'volume'");
    // A part too short or too common to be named leaves the other alone, as a word of its own.
    expect(explainMatch('per-query limits', 'Limits apply to each query.')).toBe("matched 'query', 'limits'");
    expect(explainMatch('read-after-write consistency', 'A read after a write sees it.')).toBe("matched 'read-after-write'");
  });

  it('names no part twice: a hyphenated word one of whose parts the ask named alone goes by its other parts', () => {
    const ask = matchableWords('the term of a long-term lease');
    expect(ask.words.map((w) => w.word)).toEqual(['term', 'long', 'lease']);
    expect(explainMatch(ask, 'A long-term lease runs past its first term.')).toBe("matched 'term', 'long', 'lease'");
  });

  it('counts a hyphenated word once toward the words it names, and its rarity by its rarest part', () => {
    const ask = matchableWords('long-term storage, storage and the long-term plan');
    expect(ask.words.map((w) => w.word)).toEqual(['long-term', 'storage', 'plan']);
    const text = new Set(['long', 'term', 'storag', 'storage', 'plan']);
    const held = new Map([
      ['long', 9],
      ['term', 1],
    ]);
    expect(explainMatch(ask, text, 1, new Set(), (t) => held.get(t) ?? 5)).toBe("matched 'long-term'");
  });
});

describe("an item held there by a touched path's names", () => {
  const pathWords = (path: string) => ({ path, words: matchableWords(touchedNames(path).join(' '), EDIT_TOOL_WORDS) });

  it("reads a path's names as the search does: the file's name and its folder's, split, without the extension", () => {
    expect(touchedNames('pkg/ruler/frontend_client.go')).toEqual(['frontend client', 'ruler']);
    expect(touchedNames('./docs/read-after-write.md')).toEqual(['read after write', 'docs']);
    expect(touchedNames('https://github.com/o/r/issues/7')).toEqual([]);
    expect(touchedNames('#42')).toEqual([]);
    expect(withTouchedNames('Edit it', ['pkg/ruler/frontend_client.go', 'pkg/ruler/manager.go'])).toBe(
      'Edit it frontend client ruler manager',
    );
  });

  it('says which of its words the item shares, and with which path', () => {
    const paths = [pathWords('pkg/ruler/frontend_client.go')];
    const text = 'The ruler sends its queries through the query frontend, each as a client of it.';
    expect(explainPathShare(paths, text)).toBe("shares 'frontend', 'client', 'ruler' with pkg/ruler/frontend_client.go");
    expect(explainPathShare(paths, 'Alertmanager keeps its state in memory.')).toBeUndefined();
  });

  it('names the first touched path whose words the item holds', () => {
    const paths = [pathWords('pkg/ring/kv/multi.go'), pathWords('pkg/ruler/manager.go')];
    expect(explainPathShare(paths, 'The ruler manager starts a group per tenant.')).toBe(
      "shares 'manager', 'ruler' with pkg/ruler/manager.go",
    );
  });
});

describe('a camelCase name in the ask', () => {
  it('is named as written where the item holds the name itself', () => {
    expect(explainMatch('Edit it: acceptHeader := ""', 'Set acceptHeader to the protobuf type.')).toBe("matched 'acceptHeader'");
  });

  it('is named by the parts the item holds where it holds only them', () => {
    expect(explainMatch('Edit it: acceptHeader := ""', 'A request without an accept header gets protobuf.')).toBe(
      "matched 'accept', 'header'",
    );
    expect(explainMatch('currentState := i.lifecycler.GetState()', 'The current state of the ring.')).toBe("matched 'current', 'state'");
  });
});

describe('words of degree', () => {
  it("are never named: 'too', 'very' say how much, not of what", () => {
    expect(
      explainMatch('the querier config is too slow and very large', 'A querier config that is too slow and very large.', 3, GENERIC_WORDS),
    ).toBe("matched 'querier', 'config', 'slow'");
  });
});

describe("a question's frame", () => {
  it("is never named: 'happens' asks what, and names nothing", () => {
    expect(
      explainMatch('what happens to the chunks on shutdown', 'Whatever happens, chunks are flushed on shutdown.', 3, GENERIC_WORDS),
    ).toBe("matched 'chunks', 'shutdown'");
  });
});
