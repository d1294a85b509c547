// An item's text as the agent reads it: a cut that ends where a sentence does, and code that
// keeps its lines when sent in full (one "[code]" in a one-line item).
import { describe, expect, it } from 'vitest';
import { clipProse, excerpt, sliceInPlace, withShortTableDelimiters } from '../../../src/text/readable/excerpt.js';

const SENTENCES =
  'The client retries a request once after a failed connection. It waits 200 ms before the retry. ' +
  'A second failure is reported to the caller with the original error, so nothing is retried twice without the caller knowing.';

const WITH_CODE = `Register the channel before the first request.

\`\`\`js
import diagnosticsChannel from 'node:diagnostics_channel';
const channel = diagnosticsChannel.channel('undici:request:create');
channel.subscribe(onRequest);
\`\`\`

Every request then reaches onRequest before it is sent.`;

describe('excerpt', () => {
  it('ends a cut where a sentence ends, not mid-sentence', () => {
    const cut = clipProse(SENTENCES, 150);
    expect(cut).toBe('The client retries a request once after a failed connection. It waits 200 ms before the retry. …');
    expect(cut.length).toBeLessThanOrEqual(150);
  });

  it('cuts at a word when no sentence ends late enough', () => {
    const cut = clipProse('one long sentence without a stop that runs on and on past the limit of the cut here', 40);
    expect(cut).toBe('one long sentence without a stop that…');
  });

  it('ends a sentence before a list item flattened into the prose', () => {
    const text =
      'The client is used by both the ring and the tracker (an experimental feature). - `-consul.hostname` the host and port of the Consul agent';
    expect(clipProse(text, 100)).toBe('The client is used by both the ring and the tracker (an experimental feature). …');
  });

  it('does not take an abbreviation or a version for a sentence end', () => {
    expect(clipProse('Use a pool, e.g. the default one with v1.2 settings, and keep it warm for the whole run of the job.', 60)).toBe(
      'Use a pool, e.g. the default one with v1.2 settings, and…',
    );
  });

  it('does not end a sentence at a list’s number, but at a number ending one', () => {
    // An ordered list flattened into the prose was cut to "…histograms: 1. …".
    const list = 'Native histograms offer advantages over classic histograms: 1. Better resolution at a lower cost for every bucket kept.';
    expect(clipProse(list, 90)).toBe('Native histograms offer advantages over classic histograms: 1. Better resolution at a…');
    const stops = 'The pool holds at most 10. Then it refuses new transactions until a block has been committed.';
    expect(clipProse(stops, 40)).toBe('The pool holds at most 10. …');
  });

  it('keeps fenced code as lines in an item sent in full', () => {
    const text = excerpt(WITH_CODE, 1200, true);
    expect(text).toBe(
      [
        'Register the channel before the first request.',
        '```js',
        "import diagnosticsChannel from 'node:diagnostics_channel';",
        "const channel = diagnosticsChannel.channel('undici:request:create');",
        'channel.subscribe(onRequest);',
        '```',
        'Every request then reaches onRequest before it is sent.',
      ].join('\n'),
    );
  });

  it('closes the fence after the lines that fit, and says the code was cut', () => {
    const text = excerpt(WITH_CODE, 150, true);
    expect(text).toMatch(/^Register the channel before the first request\.\n```js\nimport diagnosticsChannel[^\n]*\n```\n… code cut$/);
    expect(text.length).toBeLessThanOrEqual(150);
  });

  it('ends with "…" after a block rather than a word or two of the prose after it', () => {
    const text = `${WITH_CODE} It is called on the request's own thread, before any byte is written.`;
    const full = excerpt(text, 1200, true);
    const afterBlock = full.indexOf('```\nEvery');
    expect(afterBlock).toBeGreaterThan(0);
    // Room for a few characters of the prose after the block: not a fragment of it.
    const tight = excerpt(text, afterBlock + 12, true);
    expect(tight.endsWith('```\n…'), tight).toBe(true);
    // Room for its first sentence but not the second: that sentence, marked cut.
    const sentence = excerpt(text, afterBlock + 4 + 'Every request then reaches onRequest before it is sent.'.length + 6, true);
    expect(sentence.endsWith('```\nEvery request then reaches onRequest before it is sent. …'), sentence).toBe(true);
  });

  it('shows a one-line item that is all one block as its language and first line', () => {
    // "Configuring Allowed Limits: [code]" said nothing of what the block holds.
    const yaml = '```yaml\n\napi_allowed_limits:\n  - ingestion_rate\n  - ingestion_burst_size\n```\n';
    expect(excerpt(yaml, 160, false)).toBe('[yaml: `api_allowed_limits:` …]');
    expect(excerpt('```\nmake build\n```', 160, false)).toBe('[code: `make build`]');
    const long = `\`\`\`sh\n${'x'.repeat(100)}\n\`\`\``;
    expect(excerpt(long, 160, false)).toBe(`[sh: \`${'x'.repeat(59)}…\` …]`);
    // Beside prose, a block stays one [code].
    expect(excerpt(`Run it:\n\n${yaml}`, 160, false)).toBe('Run it: [code]');
  });

  it('makes code one [code] in a one-line item', () => {
    expect(excerpt(WITH_CODE, 160, false)).toBe(
      'Register the channel before the first request. [code] Every request then reaches onRequest before it is sent.',
    );
  });

  it('reads ~~~ fences and longer ones', () => {
    expect(excerpt('Before.\n~~~~sh\nmake test\n~~~~\nAfter.', 200, true)).toBe('Before.\n```sh\nmake test\n```\nAfter.');
  });

  it("reads a fence indented inside a list item, its lines without the fence's indentation", () => {
    const text = [
      '1) Back up the write-ahead log:',
      '',
      '    ```sh',
      '    cp "$HOME/data/wal" /tmp/wal-backup',
      '      # keep it until the node has synced',
      '    ```',
      '',
      '2) Then restart the node.',
    ].join('\n');
    expect(excerpt(text, 400, true)).toBe(
      [
        '1) Back up the write-ahead log:',
        '```sh',
        'cp "$HOME/data/wal" /tmp/wal-backup',
        '  # keep it until the node has synced',
        '```',
        '2) Then restart the node.',
      ].join('\n'),
    );
    expect(excerpt(text, 160, false)).toBe('1) Back up the write-ahead log: [code] 2) Then restart the node.');
  });

  it("reads a fence opened on a list item's own line, its lines without the item's indentation", () => {
    const text = [
      'To compare the hashes:',
      '',
      '* ```bash',
      '  $ curl -s localhost:26657/block | jq .result.block.header',
      '  ```',
      '* Then restart the node.',
    ].join('\n');
    expect(excerpt(text, 400, true)).toBe(
      [
        'To compare the hashes:',
        '```bash',
        '$ curl -s localhost:26657/block | jq .result.block.header',
        '```',
        '* Then restart the node.',
      ].join('\n'),
    );
    expect(excerpt(text, 160, false)).toBe('To compare the hashes: [code] * Then restart the node.');
    // Cut inside it: never closed, still code.
    expect(excerpt('Check:\n\n1. ```sh\n   make test\n', 200, true)).toBe('Check:\n```sh\nmake test\n```\n… code cut');
  });

  it('reads a list item that opens many fences on one line in time linear in the line', () => {
    const text = `Run:\n\n* ${'``` '.repeat(100_000)}\n`;
    expect(excerpt(text, 200, false).startsWith('Run:')).toBe(true);
  });

  it('reads a text of fences never closed in time linear in it', () => {
    // Each "```x" line opens a block none closes: looking for a closing fence from every one of
    // them took time quadratic in the text (1.6 s at 100,000 characters; minutes at this size).
    const text = `Intro.\n${'```x\n'.repeat(200_000)}`;
    expect(excerpt(text, 200, false)).toBe('Intro. [code]');
    expect(excerpt(text, 60, true)).toBe('Intro.\n```x\n```x\n```x\n```x\n```x\n```x\n```x\n```\n… code cut');
  });

  it('reads everything after a fence never closed as its code, a later closed pair included (CommonMark)', () => {
    const text = 'Before.\n\n```sh\nmake\n~~~\nnot a fence of its own\n~~~\nAfter.';
    expect(excerpt(text, 400, true)).toBe('Before.\n```sh\nmake\n~~~\nnot a fence of its own\n~~~\nAfter.\n```\n… code cut');
  });

  it('reads a block never closed over a long run of spaces in time linear in it', () => {
    // A record's text is its writer's: with the closing fence allowed to start mid-line after any
    // spaces, 400,000 of them took minutes (20,000: 0.43 s).
    const text = `Run this:\n\n\`\`\`sh\nmake${' '.repeat(400_000)}`;
    expect(excerpt(text, 200, true)).toBe('Run this:\n```sh\nmake\n```\n… code cut');
    expect(excerpt(text, 200, false)).toBe('Run this: [code]');
  });

  it('reads a fence never closed as code to the end of the text (a record cut inside a block), marked cut', () => {
    // As a brief reads a long configuration reference: its first 2,000 characters end inside the block.
    const cut = 'The `ingester_config` configures the ingester.\n\n```yaml\nlifecycler:\n  ring:\n    kvstore:\n      store: consul\n';
    expect(excerpt(cut, 1200, true)).toBe(
      [
        'The `ingester_config` configures the ingester.',
        '```yaml',
        'lifecycler:',
        '  ring:',
        '    kvstore:',
        '      store: consul',
        '```',
        '… code cut',
      ].join('\n'),
    );
    expect(excerpt(cut, 1200, false)).toBe('The `ingester_config` configures the ingester. [code]');
    // A closed block before it keeps its own shape.
    expect(excerpt('A.\n```sh\nmake\n```\nB.\n```\nno end', 200, true)).toBe('A.\n```sh\nmake\n```\nB.\n```\nno end\n```\n… code cut');
  });

  const TABLE_TEXT = [
    'Each series is replicated, so the aggregation divides by the replication factor.',
    '',
    '| Field | Aggregation Strategy |',
    '|---|---|',
    '| `numSeries` | Sum across ingesters, divided by RF |',
    '| `seriesCountByMetricName` | Sum per name, divided by RF |',
    '',
    'All ingesters must respond.',
  ].join('\n');

  it('keeps a table as its rows in an item sent in full, and its header in a one-line item', () => {
    expect(excerpt(TABLE_TEXT, 1200, true)).toBe(
      [
        'Each series is replicated, so the aggregation divides by the replication factor.',
        '| Field | Aggregation Strategy |',
        '|---|---|',
        '| `numSeries` | Sum across ingesters, divided by RF |',
        '| `seriesCountByMetricName` | Sum per name, divided by RF |',
        'All ingesters must respond.',
      ].join('\n'),
    );
    expect(excerpt(TABLE_TEXT, 1200, false)).toBe(
      'Each series is replicated, so the aggregation divides by the replication factor. [table: Field | Aggregation Strategy] All ingesters must respond.',
    );
    // A section that is all one table said "[table]" and nothing else; a wide header ends "…".
    const wide = ['| Component | Change required | Risk | Owner team | Rollout phase |', '|---|---|---|---|---|', '| a | b | c | d | e |'];
    expect(excerpt(wide.join('\n'), 160, false)).toBe('[table: Component | Change required | Risk | Owner team | …]');
    expect(excerpt(['| `a\\|b` | Value |', '|---|---|', '| x | y |'].join('\n'), 160, false)).toBe('[table: `a\\|b` | Value]');
  });

  it('sends the rows of a table that fit and says the rest was cut; a pipe in prose is prose', () => {
    const cut = excerpt(TABLE_TEXT, 190, true);
    expect(cut).toBe(
      [
        'Each series is replicated, so the aggregation divides by the replication factor.',
        '| Field | Aggregation Strategy |',
        '|---|---|',
        '| `numSeries` | Sum across ingesters, divided by RF |',
        '… table cut',
      ].join('\n'),
    );
    expect(cut.length).toBeLessThanOrEqual(190);
    expect(excerpt('Pipe the log through grep:\nrun | grep error\nthen read it.', 200, true)).toBe(
      'Pipe the log through grep: run | grep error then read it.',
    );
  });

  it('writes a padded delimiter row short, so the rows of a wide table fit where the dashes did not', () => {
    const pad = (cells: string[], widths: number[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
    const widths = [50, 9, 80];
    const table = [
      'The following metrics are available:',
      '',
      pad(['**Name**', '**Type**', '**Description**'], widths),
      pad(['-'.repeat(50), ':-------:', `${'-'.repeat(79)}:`], widths),
      pad(['consensus\\_height', 'Gauge', 'Height of the chain'], widths),
      pad(['consensus\\_validators', 'Gauge', 'Number of validators'], widths),
    ].join('\n');
    // Padded, the delimiter row alone is longer than the item's share: nothing of the table fits.
    expect(excerpt(table, 240, true)).toBe('The following metrics are available: [table]');
    const short = withShortTableDelimiters(table);
    expect(short.split('\n')[3]).toBe('| --- | :---: | ---: |');
    expect(excerpt(short, 240, true)).toBe(
      [
        'The following metrics are available:',
        '| **Name** | **Type** | **Description** |',
        '| --- | :---: | ---: |',
        '| consensus\\_height | Gauge | Height of the chain |',
        '| consensus\\_validators | Gauge | Number of validators |',
      ].join('\n'),
    );
    // Inside fenced code a table is code, and text without one is left as it is.
    const fenced = '```md\n| a | b |\n|-------|-------|\n```';
    expect(withShortTableDelimiters(fenced)).toBe(fenced);
    expect(withShortTableDelimiters('run | grep error')).toBe('run | grep error');
  });

  it('keeps a heading inside the prose on a line of its own in an item sent in full, and as words and a dash in a one-line item', () => {
    const text = 'The aggregation works per path.\n\n#### Head Path Aggregation\nBecause each series is replicated, counts are divided.';
    expect(excerpt(text, 200, true)).toBe(
      'The aggregation works per path.\n#### Head Path Aggregation\nBecause each series is replicated, counts are divided.',
    );
    expect(excerpt(text, 200, false)).toBe(
      'The aggregation works per path. Head Path Aggregation — Because each series is replicated, counts are divided.',
    );
    expect(excerpt('#### Setup\nRun it.', 200, true)).toBe('#### Setup\nRun it.');
    expect(excerpt('#### Setup\nRun it.', 200, false)).toBe('Setup — Run it.');
  });

  it('starts each list item, and the paragraph after a list, on a line of its own in an item sent in full', () => {
    const text =
      'These parameters matter most:\n\n- `p2p.send_rate` the most a peer is sent a second\n- `p2p.recv_rate`\n  the most it receives\n  1. nested, numbered\n\nIf your peers share a fast network, raise them.';
    expect(excerpt(text, 400, true)).toBe(
      'These parameters matter most:\n- `p2p.send_rate` the most a peer is sent a second\n- `p2p.recv_rate` the most it receives\n1. nested, numbered\nIf your peers share a fast network, raise them.',
    );
    // A one-line item reads as before; so does an item without a list.
    expect(excerpt(text, 400, false)).toBe(
      'These parameters matter most: - `p2p.send_rate` the most a peer is sent a second - `p2p.recv_rate` the most it receives 1. nested, numbered If your peers share a fast network, raise them.',
    );
    expect(excerpt('- first\n- second', 100, true)).toBe('- first\n- second');
    // Emphasis at a line's start, or a number ending a wrapped line, is no list.
    expect(excerpt('Keep it.\n*Note*: the rate is\n10.', 100, true)).toBe('Keep it. *Note*: the rate is 10.');
  });

  it('leaves out the headings nothing but headings follow (a section that was all images, or cut off)', () => {
    const text =
      'The image below shows the bandwidth of the three message types.\n\n#### Send:\n\n##### Top 3 Percent:\n\n#### Receive:\n\n##### Top 3 Percent:\n';
    expect(excerpt(text, 400, true)).toBe('The image below shows the bandwidth of the three message types.');
    expect(excerpt(text, 400, false)).toBe('The image below shows the bandwidth of the three message types.');
    // A heading with something under it, at any depth below it, stays, and so do those above it.
    const kept = '#### Send:\n\n##### Top 3 Percent:\nVotes, then block parts.\n\n#### Receive:\n';
    expect(excerpt(kept, 400, true)).toBe('#### Send:\n##### Top 3 Percent:\nVotes, then block parts.');
    // A text of headings alone says what they say.
    expect(excerpt('#### Send:\n\n##### Top 3 Percent:\n', 400, true)).toBe('#### Send:\n##### Top 3 Percent:');
  });

  describe('sliceInPlace', () => {
    const doc =
      'Intro text.\n\n```go\nfunc a() {\n    return 1\n}\n```\n\nAfter the code.\n\n| k | v |\n|---|---|\n| a | 1 |\n| b | 2 |\n\nEnd.';
    const at = (s: string) => doc.indexOf(s);

    it('gives a slice starting inside a code block its opening fence and the whole first line', () => {
      expect(sliceInPlace(doc, at('return'), at('After') + 5)).toBe('```go\n    return 1\n}\n```\n\nAfter');
      expect(sliceInPlace(doc, at('```go') + 2, at('}'))).toBe('```go\nfunc a() {\n    return 1\n');
    });

    it('starts after a closing fence that the slice starts on, and as it is in prose', () => {
      expect(sliceInPlace(doc, at('```\n\nAfter') + 1, at('After') + 5)).toBe('\n\nAfter');
      expect(sliceInPlace(doc, at('text.'), at('text.') + 5)).toBe('text.');
    });

    it('gives a slice starting inside a table its header and delimiter rows', () => {
      expect(sliceInPlace(doc, at('b | 2'), at('End.'))).toBe('| k | v |\n|---|---|\n| b | 2 |\n\n');
      expect(sliceInPlace(doc, at('v |'), at('| a'))).toBe('| k | v |\n|---|---|\n');
    });

    it('reopens a fence never closed', () => {
      const cut = 'Text.\n~~~yaml\nring:\n  kvstore: consul\n  replication: 3';
      expect(sliceInPlace(cut, cut.indexOf('replication'), cut.length)).toBe('~~~yaml\n  replication: 3');
    });
  });
});
