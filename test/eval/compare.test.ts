// eval/compare-runs.ts's keep rule on small hand-made runs, and eval/compare.ts from the command
// line (dist/, as npm test builds it): exit 0 when the rule is met, 1 when not, 2 for bad input.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { compareRuns, formatComparison, type RunSet } from '../../eval/compare-runs.js';

type Figures = Record<string, [recall: number, sent?: number]>;

/** One set of a run: the brief's recall@10 (and sent in full) per kind; MRR fixed at 0.5. */
function set(corpus: string, figures: Figures): RunSet {
  const kinds: RunSet['kinds'] = {};
  for (const [kind, [recall, sent = 0]] of Object.entries(figures)) {
    kinds[kind as keyof RunSet['kinds']] = { brief: { recall_at_10: recall, mrr: 0.5, sent_in_full: sent } };
  }
  return { corpus, kinds };
}

const base = [set('docs', { all: [0.7, 0.8], lexical: [0.9], paraphrase: [0.5] }), set('docs (set B)', { all: [0.8, 0.8], lexical: [1] })];

describe('the keep rule', () => {
  it('is met when a set gains and no kind of any set loses recall@10', () => {
    const variant = [
      set('docs', { all: [0.72, 0.8], lexical: [0.9], paraphrase: [0.55] }),
      set('docs (set B)', { all: [0.8, 0.8], lexical: [1] }),
    ];
    const c = compareRuns(base, variant);
    expect(c.met).toBe(true);
    expect(c.gains.map((g) => g.set)).toEqual(['docs']);
    expect(formatComparison(c)).toMatch(/keep rule: met \(docs all recall@10 0\.700 → 0\.720\)/);
  });

  it('counts a rise in sent in full alone as a gain', () => {
    const variant = [set('docs', { all: [0.7, 0.85], lexical: [0.9], paraphrase: [0.5] }), base[1]!];
    expect(compareRuns(base, variant).met).toBe(true);
  });

  it('is not met when any kind of any set loses recall@10, whatever rose elsewhere', () => {
    const variant = [
      set('docs', { all: [0.75, 0.9], lexical: [0.9], paraphrase: [0.6] }),
      set('docs (set B)', { all: [0.8, 0.8], lexical: [0.95] }),
    ];
    const c = compareRuns(base, variant);
    expect(c.met).toBe(false);
    expect(c.losses.map((l) => `${l.set} ${l.kind}`)).toEqual(['docs (set B) lexical']);
    expect(formatComparison(c)).toMatch(/keep rule: not met, lowered docs \(set B\) lexical recall@10 1\.000 → 0\.950/);
  });

  it("is not met when nothing rose, and ignores differences below the JSON's rounding", () => {
    const same = base.map((s) =>
      set(
        s.corpus,
        Object.fromEntries(Object.entries(s.kinds).map(([k, m]) => [k, [m!.brief!.recall_at_10 + 1e-9, m!.brief!.sent_in_full]])),
      ),
    );
    const c = compareRuns(base, same);
    expect(c.met).toBe(false);
    expect(c.losses).toEqual([]);
    expect(formatComparison(c)).toMatch(/nothing rose/);
  });

  it('compares only the sets both runs hold, matched by label, and names the rest', () => {
    const variant = [set('docs (set B)', { all: [0.9, 0.8], lexical: [1] }), set('docs (set C)', { all: [0.1] })];
    const c = compareRuns(base, variant);
    expect([...new Set(c.cells.map((x) => x.set))]).toEqual(['docs (set B)']);
    expect(c.unmatched).toEqual(['docs', 'docs (set C)']);
    expect(c.met).toBe(true);
  });
});

describe('compare from the command line', () => {
  const SCRIPT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist/eval/compare.js');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'doco-compare-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, content: unknown) => {
    const f = path.join(dir, name);
    writeFileSync(f, typeof content === 'string' ? content : JSON.stringify(content));
    return f;
  };
  const compare = (...args: string[]) => spawnSync(process.execPath, [SCRIPT, ...args], { encoding: 'utf8' });

  it('exits 0 when the variant meets the rule and 1 when it does not, printing the table either way', () => {
    const a = file('a.json', { corpora: base });
    const better = file('better.json', { corpora: [set('docs', { all: [0.75, 0.8], lexical: [0.9], paraphrase: [0.5] }), base[1]] });
    const worse = file('worse.json', { corpora: [set('docs', { all: [0.75, 0.8], lexical: [0.8], paraphrase: [0.5] }), base[1]] });
    const met = compare(a, better);
    expect(met.status).toBe(0);
    expect(met.stdout).toMatch(/^docs$/m);
    expect(met.stdout).toMatch(/\* all +0\.700 \/ 0\.500 \/ 0\.800 {2}→ {2}0\.750/);
    const notMet = compare(a, worse);
    expect(notMet.status).toBe(1);
    expect(notMet.stdout).toMatch(/keep rule: not met, lowered docs lexical/);
  });

  it('says what is wrong in one line and exits 2: missing files, a flag it does not know, a file that is not an eval run, runs with no set in common', () => {
    const a = file('a2.json', { corpora: base });
    const features = file('features.json', { version: 1, queries: [] });
    const other = file('other.json', { corpora: [set('elsewhere', { all: [0.5] })] });
    for (const [args, message] of [
      [[a], /^compare: two files are needed, the base run and the variant\nusage:/],
      [[a, a, '--bogus'], /^compare: --bogus: not understood\nusage:/],
      [[a, a, '--system'], /^compare: --system needs a value\nusage:/],
      [[a, path.join(dir, 'missing.json')], /^compare: ENOENT/],
      [[a, file('broken.json', '{')], /^compare: .*JSON/],
      [[a, features], /^compare: .*features\.json is not the JSON of `npm run eval -- --json`/],
      [[a, other], /^compare: the two runs share no set with figures for brief\n$/],
    ] as const) {
      const r = compare(...args);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(r.stdout).toBe('');
    }
  });
});
