// `doco lint-docs`' rules (docs/ingest.md, "Author rules"), one case per rule with the
// cases that must stay quiet beside it. No database: the manifest is handed in.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findDatedClaims } from '../../src/ingest/docs/dated-claims.js';
import { lintDocs, lintDocsTree, type LintFinding, type ManifestKey } from '../../src/ingest/docs/lint.js';

/** Exactly n characters of neutral prose: no cue words, dates or versions. */
function prose(n: number): string {
  const s = 'ledger entries settle in order. '.repeat(Math.ceil(n / 32) + 1).slice(0, n);
  return s.endsWith(' ') ? `${s.slice(0, -1)}x` : s;
}
const ARCH = 'docs/architecture/ledger.md';
const GUIDE = 'docs/guide.md';
const lint = (p: string, text: string, previous?: ManifestKey[]) => lintDocs([{ path: p, text }], previous);
const only = (findings: LintFinding[], rule: LintFinding['rule']) => findings.filter((f) => f.rule === rule);

describe('below-floor', () => {
  it('is an error for an architecture section under 200 characters, with its line and key', () => {
    const text = `## Settlement order\n\n${prose(300)}\n\n## Stub\n\n${prose(199)}\n`;
    expect(only(lint(ARCH, text), 'below-floor')).toEqual([
      {
        rule: 'below-floor',
        severity: 'error',
        path: ARCH,
        line: 5,
        heading: 'Stub',
        section_key: `${ARCH}#stub`,
        message: expect.stringContaining('199 characters, under the 200-character floor'),
      },
    ]);
  });

  it('is a warning outside docs/architecture', () => {
    const [f] = only(lint(GUIDE, `## Stub\n\n${prose(50)}\n`), 'below-floor');
    expect(f).toMatchObject({ severity: 'warning', line: 1, section_key: `${GUIDE}#stub` });
  });

  it('stays quiet at exactly 200 characters, for no intro, a title-only intro and a grouping heading', () => {
    expect(lint(ARCH, `## Enough\n\n${prose(200)}\n`)).toEqual([]);
    expect(lint(ARCH, `# Ledger\n\n## Enough\n\n${prose(250)}\n`)).toEqual([]);
    expect(lint(ARCH, `## Settlement\n\n### Order\n\n${prose(250)}\n\n### Finality\n\n${prose(250)}\n`)).toEqual([]);
  });

  it('flags an empty heading that groups nothing, and a short intro with prose (a warning even in architecture)', () => {
    const found = lint(ARCH, `# Ledger\n\nA line of intro.\n\n## Empty\n\n## Next\n\n${prose(250)}\n`);
    expect(found.map((f) => [f.rule, f.severity, f.heading, f.line])).toEqual([
      ['below-floor', 'warning', '(intro)', 1],
      ['below-floor', 'error', 'Empty', 5],
    ]);
  });

  it("reads past front matter as the ingester does: the intro's floor without it, and its line after it", () => {
    const front = '---\ntitle: Ledger\nweight: 3\n---\n';
    expect(lint(GUIDE, `${front}\n## Enough\n\n${prose(250)}\n`)).toEqual([]);
    const [f] = only(lint(GUIDE, `${front}A line of intro.\n\n## Enough\n\n${prose(250)}\n`), 'below-floor');
    expect(f).toMatchObject({ heading: '(intro)', line: 5, message: expect.stringContaining('16 characters') });
  });

  it('does not take a ## inside a code fence for a heading', () => {
    expect(lint(ARCH, `## Setup\n\n${prose(250)}\n\n\`\`\`sh\n## not a heading\n\`\`\`\n`)).toEqual([]);
  });
});

describe('past-truncation', () => {
  it('is quiet at 2,400 characters and warns past them, counting and quoting what is cut', () => {
    expect(lint(GUIDE, `## Long\n\n${prose(2400)}\n`)).toEqual([]);
    const body = `${prose(2399)} tail words beyond the cut go here and more`;
    const [f] = lint(GUIDE, `## Long\n\n${body}\n`);
    expect(f).toMatchObject({ rule: 'past-truncation', severity: 'warning', line: 3, heading: 'Long' });
    expect(f!.message).toContain(`body is ${body.length} characters: the last ${body.length - 2400} past the 2400-character cut`);
    expect(f!.message).toContain('from "tail words beyond the cut go here and …"'); // eight words, then an ellipsis
  });

  it('points at the line the cut falls on, and marks a cut inside a word', () => {
    const body = `${prose(1000)}\n\n${prose(1000)}\n\n${prose(600)}`;
    const [f] = lint(GUIDE, `## Long\n\n${body}\n`);
    expect(f!.line).toBe(7);
    expect(f!.message).toMatch(/from "…\S/);
  });

  it('is an error in architecture when the cut text holds MUST/never/always/required', () => {
    const [f] = lint(ARCH, `## Rules\n\n${prose(2400)} Refunds MUST go to the paying card and never to credit.\n`);
    expect(f).toMatchObject({ rule: 'past-truncation', severity: 'error' });
    expect(f!.message).toContain('load-bearing wording ("MUST", "never")');
  });

  it('stays a warning for cues before the cut, cues in code, and cues outside architecture', () => {
    const early = `## Rules\n\nThis MUST hold. ${prose(2500)}\n`;
    const inCode = `## Rules\n\n${prose(2400)}\n\n\`\`\`\nalways: true\n\`\`\`\nand \`never\` here\n`;
    for (const [p, text] of [
      [ARCH, early],
      [ARCH, inCode],
      [GUIDE, `## Rules\n\n${prose(2400)} You must always do it.\n`],
    ] as const) {
      expect(lint(p, text).map((f) => [f.rule, f.severity])).toEqual([['past-truncation', 'warning']]);
    }
  });
});

describe('duplicate-key', () => {
  it('is an error on the second of two headings that slug alike, naming the first', () => {
    const text = `## Set up!\n\n${prose(250)}\n\n## Other\n\n${prose(250)}\n\n## set-up\n\n${prose(250)}\n`;
    const [f] = lint(GUIDE, text);
    expect(f).toMatchObject({ rule: 'duplicate-key', severity: 'error', line: 9, heading: 'set-up' });
    expect(f!.message).toContain(`section_key "${GUIDE}#set-up" is also the key of "Set up!" on line 1`);
  });

  it('catches a heading named Intro beside an intro with text, and not beside an empty one', () => {
    expect(only(lint(GUIDE, `${prose(250)}\n\n## Intro\n\n${prose(250)}\n`), 'duplicate-key')).toHaveLength(1);
    expect(lint(GUIDE, `## Intro\n\n${prose(250)}\n`)).toEqual([]);
  });

  it('stays quiet for distinct headings and for the same heading in two files', () => {
    expect(
      lintDocs([
        { path: 'docs/a.md', text: `## Setup\n\n${prose(250)}\n` },
        { path: 'docs/b.md', text: `## Setup\n\n${prose(250)}\n` },
      ]),
    ).toEqual([]);
  });
});

describe('renamed-heading', () => {
  const text = `## Settlement ordering\n\n${prose(250)}\n\n## Finality\n\n${prose(250)}\n`;
  const manifest = (...keys: string[]): ManifestKey[] => keys.map((k) => ({ section_key: k, path: k.split('#')[0]! }));

  it('warns when an architecture key vanished and a new one appeared in the same file', () => {
    const found = lint(ARCH, text, manifest(`${ARCH}#settlement-order`, `${ARCH}#finality`));
    expect(found).toEqual([
      {
        rule: 'renamed-heading',
        severity: 'warning',
        path: ARCH,
        line: 1,
        heading: 'Settlement ordering',
        section_key: `${ARCH}#settlement-ordering`,
        message: expect.stringContaining(
          `renamed "${ARCH}#settlement-order" → "${ARCH}#settlement-ordering" since the last ingest; headings under docs/architecture are a frozen interface`,
        ),
      },
    ]);
  });

  it('pairs several renames by likeness', () => {
    const found = lint(ARCH, text, manifest(`${ARCH}#finality-rules`, `${ARCH}#settlement-order`));
    expect(found.map((f) => f.message.match(/renamed "[^#]+#([^"]+)" → "[^#]+#([^"]+)"/)!.slice(1))).toEqual([
      ['settlement-order', 'settlement-ordering'],
      ['finality-rules', 'finality'],
    ]);
  });

  it('stays quiet without a manifest, for a deletion, an addition, a gone file and docs outside architecture', () => {
    expect(lint(ARCH, text)).toEqual([]);
    expect(lint(ARCH, text, manifest(`${ARCH}#settlement-ordering`, `${ARCH}#finality`, `${ARCH}#removed`))).toEqual([]);
    expect(lint(ARCH, text, manifest(`${ARCH}#finality`))).toEqual([]);
    expect(lint(ARCH, text, manifest('docs/architecture/gone.md#settlement-order'))).toEqual([]);
    expect(lint('docs/guide.md', text, manifest('docs/guide.md#settlement-order'))).toEqual([]);
  });
});

describe('dated-claim', () => {
  it('warns on dated status in architecture sections, at the line, the heading included', () => {
    const body = [
      prose(200),
      'As of 2024 the ledger is sharded.',
      'It currently retries; new in v1.2.3.',
      'Since 0.38 writes are batched.',
      'p95 was 40 ms, last measured in Q3 2024.',
    ].join('\n');
    const found = lint(ARCH, `## Status as of March 2024\n\n${body}\n`);
    expect(found.every((f) => f.rule === 'dated-claim' && f.severity === 'warning' && f.heading === 'Status as of March 2024')).toBe(true);
    expect(found.map((f) => [f.line, f.message.match(/"([^"]+)"/)![1]])).toEqual([
      [1, 'as of March 2024'],
      [4, 'As of 2024'],
      [5, 'currently'],
      [5, 'new in v1.2.3'],
      [6, 'Since 0.38'],
      [7, 'last measured'],
      [7, 'Q3 2024'],
    ]);
  });

  it('stays quiet outside docs/architecture', () => {
    expect(lint(GUIDE, `## Status\n\nAs of 2024 the ledger currently runs v1.2.3. ${prose(200)}\n`)).toEqual([]);
  });

  it('stays quiet on look-alikes, code, inline code and link targets', () => {
    const body = [
      prose(200),
      'The currency field is ISO 4217; writes run concurrently; the current leader signs.',
      'A batch holds 2048 tokens; port 2024 listens; retry in 2.5 seconds; see RFC 2119.',
      'The most recently committed block wins, as soon as it is final, if it is not yet final.',
      'Run `npm i doco@1.2.3` and read [the notes](https://example.com/2024/v1.2.3).',
      '```sh',
      'echo "currently v1.2.3 as of 2024"',
      '```',
    ].join('\n');
    expect(lint(ARCH, `## Ledger\n\n${body}\n`)).toEqual([]);
  });

  it('documents its patterns by kind', () => {
    const kinds = (s: string) => findDatedClaims(s).map((c) => c.kind);
    expect(kinds('at the moment; right now; today; for now')).toEqual(['now', 'now', 'now', 'now']);
    expect(kinds('last month; this quarter; yesterday')).toEqual(['relative-period', 'relative-period', 'relative-period']);
    expect(kinds('shipped 2024-03-15, in 2023, (2022), mid-2021')).toEqual(['date', 'date', 'date', 'date']);
    expect(kinds('hit rate 93% as measured; work in progress; TODO')).toEqual(['measurement', 'progress', 'progress']);
    expect(kinds('a todo list; from 2000 rows; since 1.5 seconds; TLS 1.3')).toEqual([]);
  });
});

describe('lintDocsTree', () => {
  let root: string | undefined;
  afterAll(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('walks the watched set (skipping docs/archive) and returns findings in file order, then by line', async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'doco-lint-'));
    await mkdir(path.join(root, 'docs/architecture'), { recursive: true });
    await mkdir(path.join(root, 'docs/archive'), { recursive: true });
    await writeFile(path.join(root, 'README.md'), `## Short\n\nhi\n`);
    await writeFile(path.join(root, 'docs/architecture/a.md'), `## Fine\n\n${prose(250)} Currently so.\n\n## Stub\n\nshort\n`);
    await writeFile(path.join(root, 'docs/archive/old.md'), `## Stub\n\nshort\n`);
    const { files, findings } = await lintDocsTree(root);
    expect(files).toEqual(['README.md', 'docs/architecture/a.md']);
    expect(findings.map((f) => [f.path, f.line, f.rule, f.severity])).toEqual([
      ['README.md', 1, 'below-floor', 'warning'],
      ['docs/architecture/a.md', 3, 'dated-claim', 'warning'],
      ['docs/architecture/a.md', 5, 'below-floor', 'error'],
    ]);
  });
});
