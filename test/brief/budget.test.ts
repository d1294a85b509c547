// Fitting to the budget: an item's text is its record's text with whitespace collapsed, cut at a
// word near the limit; the cut reads only as much of a long text as it can show.
import { describe, expect, it } from 'vitest';
import {
  fitToBudget,
  fullChars,
  FULL_LENGTH_ITEMS,
  laterChars,
  MAX_FULL_ITEMS,
  MAX_LINE_ITEMS,
  ONE_LINE_CHARS,
  type Candidate,
} from '../../src/brief/budget.js';
import { withoutTitleLine } from '../../src/text/readable/excerpt.js';
import { bestPassage } from '../../src/brief/passage.js';
import { CANDIDATE_TEXT_CHARS } from '../../src/retrieval/candidates.js';
import { termSet } from '../../src/retrieval/because.js';
import { flattenWhitespace, originalIndex } from '../../src/text/readable/whitespace.js';

/** The cut as specified for text with no sentence end and no code: collapse all the text's whitespace, then cut at a word before `max` (excerpt.test.ts has the rest). */
function reference(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max - 1);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), max * 0.6))}…`;
}

const candidate = (id: string, fullText: string, standing: boolean): Candidate => ({
  id,
  node_type: 'reference',
  collection: 'docs',
  lifecycle: 'active',
  title: id,
  because: 'similar to the ask',
  score: 1,
  updated_at: '2025-01-01T00:00:00.000Z',
  source: { kind: 'record', pointer: {} },
  fullText,
  tier: 'background',
  standing,
});

/** Texts around the edges of a cut: long runs of whitespace, a run across the point the cut reads to, no spaces, non-ASCII. */
function texts(): string[] {
  const words = (n: number, sep: (i: number) => string) => Array.from({ length: n }, (_, i) => `word${i}${sep(i)}`).join('');
  return [
    words(400, () => ' '),
    words(400, (i) => (i % 3 ? ' ' : '\n\n')),
    words(60, () => ' '.repeat(40)),
    `${'   \t\n'.repeat(100)}${words(200, () => ' ')}`,
    `${'x'.repeat(199)}${' '.repeat(300)}tail words here`,
    'y'.repeat(3000),
    words(300, (i) => (i % 7 ? '\u00a0' : '\u2028')),
    `${'é🔮 '.repeat(500)}`,
    'short text',
    '',
  ];
}

/** The length of the first items sent in full in a brief with a budget to spare. */
const EXPANDED_CHARS = fullChars(100_000);

describe('fitToBudget', () => {
  it('sends each item as its text collapsed and cut at a word, in full and as one line alike', () => {
    for (const text of texts()) {
      // A standing order goes as one line; with a budget to spare, a relevant item goes in full.
      const fitted = fitToBudget([candidate('standing', text, true), candidate('full', text, false)], 100_000);
      const sent = fitted.tiers.background;
      expect(sent.find((i) => i.id === 'standing')!.text).toBe(reference(text, ONE_LINE_CHARS));
      expect(sent.find((i) => i.id === 'full')!.text).toBe(reference(text, EXPANDED_CHARS));
    }
  });

  it('sends the first items in full at length and the next ones shorter', () => {
    const text = 'word '.repeat(1000);
    const fitted = fitToBudget(
      Array.from({ length: FULL_LENGTH_ITEMS + 3 }, (_, i) => candidate(`c${i}`, text, false)),
      100_000,
    );
    const byId = new Map(fitted.tiers.background.map((i) => [i.id, i]));
    for (let i = 0; i < FULL_LENGTH_ITEMS + 3; i++) {
      expect(byId.get(`c${i}`)).toMatchObject({
        expanded: true,
        text: reference(text, i < FULL_LENGTH_ITEMS ? EXPANDED_CHARS : laterChars(100_000)),
      });
    }
  });

  it('sends shorter passages in a smaller brief: the length follows the budget, within bounds', () => {
    expect([fullChars(1500), laterChars(1500)]).toEqual([450, 350]);
    expect([fullChars(4000), laterChars(4000)]).toEqual([600, 360]);
    expect([fullChars(100_000), laterChars(100_000)]).toEqual([1200, 800]);
    expect([fullChars(200), laterChars(200)]).toEqual([450, 350]);
    const text = 'word '.repeat(1000);
    const [first] = fitToBudget([candidate('a', text, false)], 1500).tiers.background;
    expect(first).toMatchObject({ expanded: true, text: reference(text, 450) });
  });

  it('stops: at most MAX_FULL_ITEMS in full and MAX_LINE_ITEMS as one line, the rest held back, however much budget is left', () => {
    const many = Array.from({ length: MAX_FULL_ITEMS + MAX_LINE_ITEMS + 5 }, (_, i) => ({
      ...candidate(`c${i}`, 'A short record. '.repeat(3), false),
      score: 1 - i / 100,
    }));
    const fitted = fitToBudget(many, 100_000);
    const sent = fitted.tiers.background;
    expect(sent.filter((i) => i.expanded).map((i) => i.id)).toEqual(many.slice(0, MAX_FULL_ITEMS).map((c) => c.id));
    expect(sent.filter((i) => !i.expanded).map((i) => i.id)).toEqual(
      many.slice(MAX_FULL_ITEMS, MAX_FULL_ITEMS + MAX_LINE_ITEMS).map((c) => c.id),
    );
    expect(fitted.heldBack).toBe(5);
  });

  it('sends every standing order whatever the caps, and they take no place from the one-line items', () => {
    const standing = Array.from({ length: MAX_LINE_ITEMS + 3 }, (_, i) => candidate(`s${i}`, 'Always do this.', true));
    const rest = Array.from({ length: MAX_FULL_ITEMS + MAX_LINE_ITEMS }, (_, i) => ({
      ...candidate(`c${i}`, 'A record.', false),
      score: 0.5,
    }));
    const fitted = fitToBudget([...standing, ...rest], 100_000);
    const sent = fitted.tiers.background;
    expect(sent.filter((i) => i.id.startsWith('s')).length).toBe(standing.length);
    expect(sent.filter((i) => i.id.startsWith('c')).length).toBe(rest.length);
    expect(fitted.heldBack).toBe(0);
  });

  it('sends in full the passage of a long item that names the ask, not its opening', () => {
    const opening = Array.from({ length: 40 }, (_, i) => `Background sentence number ${i} says nothing in particular.`).join(' ');
    const text = `${opening} Refunds over the approval threshold need a second approver. ${opening}`;
    const [item] = fitToBudget([candidate('a', text, false)], 100_000, termSet('who approves a large refund')).tiers.background;
    expect(item!.expanded).toBe(true);
    expect(item!.text).toContain('Refunds over the approval threshold need a second approver.');
    expect(item!.text.length).toBeLessThanOrEqual(EXPANDED_CHARS);
    // Without the ask's terms it is the opening, cut where its last whole sentence ends.
    const [plain] = fitToBudget([candidate('a', text, false)], 100_000).tiers.background;
    expect(plain!.text.startsWith('Background sentence number 0 says nothing in particular.')).toBe(true);
    expect(plain!.text).toMatch(/ says nothing in particular\. …$/);
    expect(plain!.text.length).toBeLessThanOrEqual(EXPANDED_CHARS);
  });

  it('sends as one line the stretch of a long item that names the ask, never longer than its opening; a standing order keeps its opening', () => {
    const opening = Array.from({ length: 40 }, (_, i) => `Background sentence number ${i} says nothing in particular.`).join(' ');
    const text = `${opening} Refunds over the approval threshold need a second approver. ${opening}`;
    // MAX_FULL_ITEMS short items take every place in full: the long one goes as one line.
    const full = Array.from({ length: MAX_FULL_ITEMS }, (_, i) => ({ ...candidate(`f${i}`, 'A short record.', false), score: 1 }));
    const ask = termSet('who approves a large refund');
    const fitted = fitToBudget([candidate('rule', text, true), ...full, { ...candidate('long', text, false), score: 0.5 }], 100_000, ask);
    const sent = fitted.tiers.background;
    // Without the ask's terms, the opening, cut where a sentence ends.
    const plain = fitToBudget([...full, { ...candidate('long', text, false), score: 0.5 }], 100_000).tiers.background;
    const openingLine = plain.find((i) => i.id === 'long')!.text;
    expect(openingLine.startsWith('Background sentence number 0 says nothing in particular.')).toBe(true);
    const line = sent.find((i) => i.id === 'long')!;
    expect(line.expanded).toBe(false);
    expect(line.text).toMatch(/^…Refunds over the approval threshold need a second approver\./);
    expect(Math.ceil(line.text.length / 4)).toBeLessThanOrEqual(Math.ceil(reference(text, ONE_LINE_CHARS).length / 4));
    expect(sent.find((i) => i.id === 'rule')!.text).toBe(openingLine);
  });

  it('sends the opening, not "[table]", when the passage naming the ask is a table too wide to keep a row of', () => {
    const opening = Array.from({ length: 40 }, (_, i) => `Background sentence number ${i} says nothing in particular.`).join(' ');
    const cell = (s: string) => `${s} ${'wide '.repeat(30)}`;
    const table = [
      `| ${cell('Case')} | ${cell('Who')} |`,
      '| --- | --- |',
      `| ${cell('Refund over the threshold')} | ${cell('A second approver')} |`,
      `| ${cell('Refund under the threshold')} | ${cell('The owner alone')} |`,
    ].join('\n');
    const text = `${opening}\n\n${table}\n`;
    const [item] = fitToBudget([candidate('a', text, false)], 1500, termSet('who approves a refund over the threshold')).tiers.background;
    expect(item!.expanded).toBe(true);
    expect(item!.text.startsWith('Background sentence number 0 says nothing in particular.'), item!.text).toBe(true);
  });

  it("sends a passage among a table's rows from its header and the row naming the ask, not the rows before it", () => {
    const opening = Array.from({ length: 40 }, (_, i) => `Background sentence number ${i} says nothing in particular.`).join(' ');
    const rows = Array.from({ length: 12 }, (_, i) => `| Endpoint ${i} of the scheduler | Scheduler | \`GET /scheduler/${i}\` |`);
    rows.splice(8, 0, '| Refund approvals over the threshold | Billing | `POST /billing/refund-approvals` |');
    const text = `${opening}\n\n| API | Service | Endpoint |\n| --- | --- | --- |\n${rows.join('\n')}\n`;
    const [item] = fitToBudget([candidate('a', text, false)], 1500, termSet('which endpoint approves a refund over the threshold')).tiers
      .background;
    expect(item!.expanded).toBe(true);
    const lines = item!.text.split('\n');
    expect(lines.slice(0, 3)).toEqual(['…', '| API | Service | Endpoint |', '| --- | --- | --- |']);
    expect(lines[3]).toBe('| Refund approvals over the threshold | Billing | `POST /billing/refund-approvals` |');
  });

  it("takes, of two rows naming as many of the ask's terms, the one naming them more often", () => {
    const opening = Array.from({ length: 40 }, (_, i) => `Background sentence number ${i} says nothing in particular.`).join(' ');
    const rows = Array.from({ length: 12 }, (_, i) => `| Endpoint ${i} of the scheduler | Scheduler | \`GET /scheduler/${i}\` |`);
    rows.splice(6, 0, '| Refund list | Billing | `GET /billing/list` |', '| [Refund](#refund) | Billing | `POST /billing/refund` |');
    const text = `${opening}\n\n| API | Service | Endpoint |\n| --- | --- | --- |\n${rows.join('\n')}\n`;
    const [item] = fitToBudget([candidate('a', text, false)], 1500, termSet('refund')).tiers.background;
    expect(item!.text.split('\n')[3]).toBe('| [Refund](#refund) | Billing | `POST /billing/refund` |');
  });

  it('sends a passage that opens on a heading to its last whole sentence, within the tokens it reserved', () => {
    // Its "…" takes a line of its own before the heading. With the room cut to the flattened
    // passage's characters (and the heading's leading newline counted, then trimmed), the last
    // sentence no longer fitted, and the text was cut inside it ("…holds the entry in…"): in
    // every one of these 60 texts. Each pads the long sentence a character more.
    const terms = termSet('offer pending entries to the list');
    const filler = Array.from({ length: 8 }, (_, i) => `Filler sentence ${i} about nothing much at all here.`).join(' ');
    const after = `This closing remark is long enough that it never fits beside the rest, ${'so it waits '.repeat(20)}.`;
    for (let pad = 0; pad < 60; pad++) {
      const long = `The list will offer every pending entry to the application, ${'and then again '.repeat(8)}unless the list already holds the entry in question ${'y'.repeat(pad)}.`;
      const text = `${filler}\n\n#### \`OfferPending\`\n\nIt offers entries. ${long} ${after} ${filler}`;
      const fitted = fitToBudget([candidate('a', text, false)], 1500, terms);
      const [item] = fitted.tiers.background;
      expect(item!.text.startsWith('…\n#### `OfferPending`\nIt offers entries.'), `padded ${pad}`).toBe(true);
      expect(item!.text, `padded ${pad}`).toMatch(/in question y*\.…$/);
      const overhead = Math.ceil(`a a\n  because: similar to the ask\n`.length / 4);
      expect(fitted.sentTokens).toBe(overhead + Math.ceil(item!.text.length / 4));
    }
  });

  it('decides what fits on the plain cut and sends the shaped text, counting what it sends', () => {
    const sentences = Array.from({ length: 60 }, (_, i) => `Sentence ${i} ends here.`).join(' ');
    const fitted = fitToBudget([candidate('a', sentences, false), candidate('b', sentences, false)], 100_000);
    const [a] = fitted.tiers.background;
    expect(a!.text).toMatch(/ ends here\. …$/);
    expect(a!.text.length).toBeLessThan(reference(sentences, EXPANDED_CHARS).length);
    const overhead = (id: string) => Math.ceil(`${id} ${id}\n  because: similar to the ask\n`.length / 4);
    const sentTexts = fitted.tiers.background.reduce((n, i) => n + overhead(i.id) + Math.ceil(i.text.length / 4), 0);
    expect(fitted.sentTokens).toBe(sentTexts);
  });

  it('sends a later passage holding code with the code as lines, starting where the ask is named', () => {
    const opening = Array.from({ length: 30 }, (_, i) => `Background sentence number ${i} says nothing in particular.`).join(' ');
    const code = ['service:', '  retries:', '    max_backoff: 5s', '    refund_approvals: 2', '  timeout: 30s'].join('\n');
    const text = `${opening}\n\n\`\`\`yaml\n${code}\n\`\`\`\n\nRefund approvals above the limit wait for a second approver. ${opening}`;
    const ask = termSet('refund approvals second approver max backoff');
    const [item] = fitToBudget([candidate('a', text, false)], 100_000, ask).tiers.background;
    expect(item!.expanded).toBe(true);
    // The fence starts its line after the mark; the code keeps its lines; prose follows the block.
    expect(
      item!.text.startsWith(`…\n\`\`\`yaml\n${code}\n\`\`\`\nRefund approvals above the limit wait for a second approver. Background`),
    ).toBe(true);
    expect(item!.text).toMatch(/ says nothing in particular\. …$/);
    const flat = bestPassage(flattenWhitespace(text), ask, EXPANDED_CHARS)!;
    expect(flat.text).toContain('max_backoff: 5s refund_approvals: 2');
    expect(item!.text.length).toBeLessThanOrEqual(flat.text.length);
  });

  it('marks a passage cut at the end of a text loaded only in part (the first CANDIDATE_TEXT_CHARS)', () => {
    const opening = Array.from({ length: 28 }, (_, i) => `Background sentence number ${i} says nothing in particular.`).join(' ');
    const ask = termSet('refund approvals second approver');
    const key = 'Refund approvals above the limit wait for a second approver.';
    const record = `${opening} ${key} The payout then goes to the card that paid, ${'with its ledger reference kept '.repeat(20)}`;
    const loaded = record.slice(0, CANDIDATE_TEXT_CHARS);
    const [item] = fitToBudget([candidate('a', loaded, false)], 100_000, ask).tiers.background;
    expect(item!.text.startsWith(`…${key}`)).toBe(true);
    expect(item!.text.endsWith('…')).toBe(true);
    // A shorter text is the record's whole text: a passage reaching its end is not marked.
    const whole = `${opening} ${key}`;
    const [ends] = fitToBudget([candidate('a', whole, false)], 100_000, ask).tiers.background;
    expect(ends!.text).toBe(`…${key}`);
  });

  it('reopens the fence of a code block the passage starts inside, from the start of a line', () => {
    const opening = Array.from({ length: 30 }, (_, i) => `Background sentence number ${i} says nothing in particular.`).join(' ');
    // The block's start is too far above the line naming the ask for the passage to open there.
    const yaml = Array.from({ length: 120 }, (_, i) => (i === 105 ? '  refund_approvals: 2 # second approver' : `  key_${i}: value_${i}`));
    const text = `${opening}\n\n\`\`\`yaml\nlimits:\n${yaml.join('\n')}\n\`\`\`\n\nThe end.`;
    const ask = termSet('refund approvals second approver');
    const [item] = fitToBudget([candidate('a', text, false)], 100_000, ask).tiers.background;
    const lines = item!.text.split('\n');
    expect(lines.slice(0, 2)).toEqual(['…', '```yaml']);
    // Whole lines as written, in order, through the one naming the ask.
    const first = yaml.indexOf(lines[2]!);
    expect(first).toBeGreaterThan(0);
    expect(first).toBeLessThanOrEqual(105);
    expect(lines.slice(2, 2 + 106 - first)).toEqual(yaml.slice(first, 106));
    expect(item!.text.match(/^```/gm)?.length).toBe(2);
    expect(item!.text.length).toBeLessThanOrEqual(bestPassage(flattenWhitespace(text), ask, EXPANDED_CHARS)!.text.length);
  });

  it('sends a passage starting mid-line as prose, whatever its first characters', () => {
    const opening = Array.from({ length: 30 }, (_, i) => `Background sentence number ${i} says nothing in particular.`).join(' ');
    const text = `${opening} \`\`\`inline refund approvals need a second approver. ${opening}\n\n\`\`\`\ncode\n\`\`\``;
    const ask = termSet('refund approvals second approver');
    const [item] = fitToBudget([candidate('a', text, false)], 100_000, ask).tiers.background;
    expect(item!.text.startsWith('…```inline refund approvals need a second approver. Background')).toBe(true);
  });

  it('keeps deeply indented code as lines, a few lines fewer, where the shaped text would pass the plain cut', () => {
    // Flattened, the whole text fits (535 characters); with each line's indentation kept it would
    // not (895), so the code is cut a few lines short rather than sent on one line.
    const yaml = Array.from({ length: 30 }, (_, i) => `${' '.repeat(12)}key_${i}: value ${i}`).join('\n');
    const text = `Configure the ring here.\n\n\`\`\`yaml\n${yaml}\n\`\`\`\n\nThe end.`;
    const fitted = fitToBudget([candidate('a', text, false)], 100_000);
    const [a] = fitted.tiers.background;
    const plain = reference(text, EXPANDED_CHARS);
    expect(a!.text).toMatch(/^Configure the ring here\.\n```yaml\n {12}key_0: value 0\n {12}key_1: value 1\n/);
    expect(a!.text).toMatch(/\n```\n… code cut$/);
    expect(plain).not.toMatch(/…$/);
    expect(a!.text.length).toBeLessThanOrEqual(plain.length);
  });

  it('never flattens code it must cut by less than a line: the longest shaped text within the plain cut', () => {
    // The plain cut of this text is 8 characters shorter than its shaped opening; cutting by that
    // much kept the same code lines four times over, and the block went out on one line.
    const text = [
      '[Trust options](https://example.com/docs/trust#options)',
      '',
      'One way to obtain a semi-trusted hash and height is to ask several full nodes and compare their hashes:',
      '',
      '```bash',
      '$ curl -s https://203.0.113.7:26657/commit | jq "{height: .result.signed_header.header.height, hash: .result.signed_header.commit.block_id.hash}"',
      '{',
      '  "height": "273",',
      '  "hash": "188F4F36CBCD2C91B57509BBF231C777E79B52EE3E0D90D06B1A25EB16E6E23D"',
      '}',
      '```',
    ].join('\n');
    const [item] = fitToBudget([candidate('a', text, false)], 1500).tiers.background;
    expect(item!.expanded).toBe(true);
    expect(item!.text).not.toMatch(/```bash \$/);
    expect(item!.text).toMatch(/their hashes:\n```bash\n\$ curl -s [^\n]+\n\{\n/);
    expect(item!.text).toMatch(/\n```\n… code cut$/);
    expect(item!.text.length).toBeLessThanOrEqual(reference(text, fullChars(1500)).length);
  });

  it('elides a block whose lines it cannot keep, and sends the prose after it, where keeping one would leave under half the room', () => {
    // Cut at a word, the flattened text stops before the first 240-character line ends; kept
    // whole, that line passes the room, and without it only the first sentence and [code] are left.
    const line = `MIIB${'QUFB'.repeat(59)}`;
    const text = `Paste the key.\n\n\`\`\`text\n${Array.from({ length: 6 }, () => line).join('\n')}\n\`\`\`\n\n${'The node reads the key at start and refuses to run without it. '.repeat(6)}`;
    const [item] = fitToBudget([candidate('a', text, false)], 1500).tiers.background;
    expect(item!.text).toMatch(/^Paste the key\. \[code\] The node reads the key at start/);
    expect(item!.text).not.toContain('```');
    expect(item!.text).not.toContain('MIIB');
  });

  it('sends an item as one line when its full text does not fit', () => {
    const text = 'word '.repeat(1000);
    const fitted = fitToBudget([candidate('a', text, false)], 120);
    const [item] = fitted.tiers.background;
    expect(item).toMatchObject({ expanded: false, text: reference(text, ONE_LINE_CHARS) });
  });

  it('collapses whitespace as the regex \\s and trim() read it, every UTF-16 unit alike', () => {
    const collapse = (text: string) => text.replace(/\s+/g, ' ').trim();
    const differing: number[] = [];
    for (let c = 0; c < 0x10000; c++) {
      const ch = String.fromCharCode(c);
      for (const text of [`a${ch}b`, `${ch}a${ch}${ch}b${ch}`, `a ${ch} b`])
        if (flattenWhitespace(text) !== collapse(text)) differing.push(c);
    }
    expect(differing).toEqual([]);
  });

  it('maps each character of the collapsed text back to where it is written', () => {
    for (const text of [...texts(), '  a \n\t b\u00a0\u00a0c  ', '\n\n', 'x']) {
      const flat = flattenWhitespace(text);
      for (let f = 0; f < flat.length; f++) {
        const at = originalIndex(text, f);
        // A collapsed space stands for the run of whitespace starting there; anything else is itself.
        if (flat[f] === ' ') expect(/\s/.test(text[at]!) && !/\s/.test(text[at - 1] ?? 'x')).toBe(true);
        else expect(text[at]).toBe(flat[f]);
        expect(flattenWhitespace(text.slice(at))).toBe(flat.slice(f).trim());
      }
      if (flat) expect(originalIndex(text, flat.length)).toBe(text.trimEnd().length);
    }
  });

  it('stops past a limit with a prefix of the collapsed text longer than the limit', () => {
    for (const text of texts()) {
      const whole = text.replace(/\s+/g, ' ').trim();
      for (const limit of [0, 1, 159, 160, 1200, 10_000]) {
        const head = flattenWhitespace(text, limit);
        if (whole.length <= limit) expect(head).toBe(whole);
        else {
          expect(whole.startsWith(head)).toBe(true);
          expect(head.length).toBeGreaterThan(limit);
        }
      }
    }
  });
});

describe("a document's title line", () => {
  it("is not sent again at the start of an intro whose # heading is the item's title", () => {
    const intro = candidate('State Sync', '# State Sync\n\nWith block sync a node downloads every block from genesis.', false);
    const [item] = fitToBudget([intro], 4000).tiers.background;
    expect(item!.text).toBe('With block sync a node downloads every block from genesis.');
    expect(withoutTitleLine('  # State Sync ##\nBody.', 'State Sync')).toBe('Body.');
  });

  it('stays when it is another heading, or all the text there is', () => {
    expect(withoutTitleLine('# Block Sync\n\nBody.', 'State Sync')).toBe('# Block Sync\n\nBody.');
    expect(withoutTitleLine('# State Sync', 'State Sync')).toBe('# State Sync');
    expect(withoutTitleLine('# State Sync\n\n  ', 'State Sync')).toBe('# State Sync\n\n  ');
    expect(withoutTitleLine('## State Sync\nBody.', 'State Sync')).toBe('## State Sync\nBody.');
  });
});

describe('proposals', () => {
  it('are sent in their own group, one line each, however relevant: the full-text share is for approved records', () => {
    const long = 'A proposal that explains itself at length. '.repeat(60);
    const proposal: Candidate = { ...candidate('rule_p', long, false), lifecycle: 'queued', tier: 'proposed', score: 1 };
    const active: Candidate = { ...candidate('rule_a', long, false), score: 0.9 };
    const fitted = fitToBudget([proposal, active], 4000);
    expect(fitted.proposed.map((i) => [i.id, i.expanded])).toEqual([['rule_p', false]]);
    expect(fitted.proposed[0]!.text.length).toBeLessThanOrEqual(ONE_LINE_CHARS);
    expect(
      Object.values(fitted.tiers)
        .flat()
        .map((i) => [i.id, i.expanded]),
    ).toEqual([['rule_a', true]]);
  });
});

describe('an anchor (where an item names the identifier of the code it is there for)', () => {
  const ask = termSet('change how the node sets its env size limit');
  const name = /(?<![A-Za-z0-9_])max_subscription_clients(?![A-Za-z0-9_])/i;

  it('places the passage sent in full, over the ask words of the opening', () => {
    const text = `The node checks its env size limit at start. ${'Background paragraph with nothing of note. '.repeat(30)}The websocket cap is max_subscription_clients. ${'More background. '.repeat(20)}`;
    const plain = fitToBudget([candidate('doc', text, false)], 1500, ask).tiers.background[0]!;
    expect(plain.text).not.toContain('max_subscription_clients');
    const anchored = fitToBudget([{ ...candidate('doc', text, false), anchor: name }], 1500, ask).tiers.background[0]!;
    expect(anchored).toMatchObject({ expanded: true });
    expect(anchored.text).toContain('The websocket cap is max_subscription_clients.');
    expect(Object.keys(anchored)).not.toContain('anchor');
  });

  it('keeps its line in code, whose kept lines and indentation make the passage shorter than the flattened one', () => {
    const indent = ' '.repeat(24);
    const lines = Array.from({ length: 24 }, (_, i) => `${indent}env_limit_${i} = ${i}  # the size limit of env ${i}`);
    lines.splice(20, 0, `${indent}max_subscription_clients = 100`);
    const text = `Set the node's limits in its config file:\n\n\`\`\`toml\n[rpc]\n${lines.join('\n')}\n\`\`\`\n`;
    const anchored = fitToBudget([{ ...candidate('config', text, false), anchor: name }], 1500, ask).tiers.background[0]!;
    expect(anchored.expanded).toBe(true);
    expect(anchored.text).toContain('max_subscription_clients = 100');
    expect(anchored.text).toContain('```toml');
  });
});
