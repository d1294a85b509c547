// Zero false positives: the committed fixture of tricky negatives (hashes, ids, base64, public
// keys, example configs and URLs) and, where this machine has them, the real documentation
// corpora in ../shared/eval (cometbft-docs, cortex-docs) pass the guard — each file whole, and
// each section as the doc ingester would store it (title, prose and body of its record).
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sectionSecrets } from '../../../src/ingest/docs/section-secrets.js';
import { sectionRecord, splitMarkdown } from '../../../src/ingest/docs/sections.js';
import { readDocTree } from '../../../src/ingest/docs/walk.js';
import { findSecretsInFields } from '../../../src/text/secrets/fields.js';
import { findSecretSpans } from '../../../src/text/secrets/scan.js';

const here = import.meta.dirname;
const FIXTURE = path.resolve(here, '../../fixtures/secrets/tricky-negatives.md');
const EVAL_DIR = process.env.DOCO_EVAL_CORPORA ?? path.resolve(here, '../../../../shared/eval');
const CORPORA = ['cometbft-docs', 'cortex-docs'];

/** What a false positive looks like in a failure message: where, and the kind (a stand-in, so safe to show). */
const describeSpans = (name: string, text: string) =>
  findSecretSpans(text).map(
    (s) => `${name}: ${s.kind} at ${s.start}: ${JSON.stringify(text.slice(Math.max(0, s.start - 30), s.end + 10))}`,
  );

describe('the committed fixture of tricky negatives', () => {
  it('holds nothing the guard refuses, as one text', async () => {
    const text = await readFile(FIXTURE, 'utf8');
    expect(text.length).toBeGreaterThan(4000);
    expect(describeSpans('fixture', text)).toEqual([]);
  });

  it('holds nothing the guard refuses, line by line and section by section as ingested', async () => {
    const text = await readFile(FIXTURE, 'utf8');
    const lines = text.split('\n').flatMap((l, i) => describeSpans(`line ${i + 1}`, l));
    expect(lines).toEqual([]);
    const { sections } = splitMarkdown('docs/tricky-negatives.md', text);
    expect(sections.length).toBeGreaterThan(4);
    expect(sections.flatMap((s) => sectionSecrets(s, sectionRecord(s)))).toEqual([]);
  });

  it('would be refused if it held one real-shaped secret (the test can fail)', async () => {
    const text = await readFile(FIXTURE, 'utf8');
    const planted = text.replace('## URLs', `## URLs\n\nDATABASE_URL=postgres://app:Zq81xLw0Pk3mR7@db.prod.internal/app`);
    expect(findSecretsInFields({ prose: planted }).map((f) => f.kind)).toEqual(['url_password']);
  });
});

for (const corpus of CORPORA) {
  const dir = path.join(EVAL_DIR, corpus);
  const present = existsSync(dir);
  describe(`the real corpus ${corpus}`, () => {
    it.skipIf(!present)(
      present
        ? 'every file, whole, holds nothing the guard refuses'
        : `SKIPPED: ${dir} is not on this machine (set DOCO_EVAL_CORPORA to run it)`,
      async () => {
        const tree = await readDocTree(dir);
        const readable = tree.files.filter((f) => 'sections' in f);
        expect(readable.length).toBeGreaterThan(90);
        const found: string[] = [];
        for (const f of readable) found.push(...describeSpans(f.path, await readFile(path.join(dir, f.path), 'utf8')));
        expect(found).toEqual([]);
      },
    );

    it.skipIf(!present)(
      present ? 'every section, as the ingester would store it, holds nothing the guard refuses' : `SKIPPED: ${dir} is not on this machine`,
      async () => {
        const tree = await readDocTree(dir);
        const sections = tree.files.flatMap((f) => ('sections' in f ? f.sections : []));
        expect(sections.length).toBeGreaterThan(700);
        expect(sections.flatMap((s) => sectionSecrets(s, sectionRecord(s)))).toEqual([]);
      },
    );
  });
}
