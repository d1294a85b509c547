// The secrets guard's cost: scanning a 100,000-character prose (the largest a record takes) of
// plain technical text and of text dense with what the detectors' keyword gates let through
// (config keys, URLs, tokens, base64), the guard over a full 50-operation changeset, and, when
// present, the ../shared/eval corpora section by section. No database: the guard runs before one.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sectionSecrets } from '../src/ingest/docs/section-secrets.js';
import { sectionRecord } from '../src/ingest/docs/sections.js';
import { readDocTree } from '../src/ingest/docs/walk.js';
import { secretsInChangeset } from '../src/graph/secrets-guard.js';
import { findSecrets } from '../src/text/secrets/scan.js';
import type { ChangesetInput } from '../src/graph/schemas.js';
import { percentile, round } from './stats.js';

const RUNS = 30;
const here = path.dirname(fileURLToPath(import.meta.url));

function fill(pieces: string[], chars: number): string {
  let out = '';
  for (let i = 0; out.length < chars; i++) out += `${pieces[i % pieces.length]} `;
  return out.slice(0, chars);
}

/** Ordinary prose of a design doc: no keyword any detector waits for. */
const PLAIN = [
  'The mempool keeps transactions in arrival order and rechecks them after every block is committed.',
  'A validator signs a prevote only once per height and round, so an equivocation is evidence.',
  'Blocks are gossiped in parts of 64 KiB; a peer that sends a part twice is marked as misbehaving.',
  'See state/validation.go and the ADR on light client verification for the full rules.\n',
];

/** Text that opens most gates: config keys with stand-in values, URLs, base64, tokens named. */
const DENSE = [
  'password: <your-password>',
  'api_key: ${API_KEY}',
  'secret_key = "changeme"',
  'Authorization: Bearer $TOKEN',
  'postgres://user@db.internal:5432/app',
  'https://user:pass@example.com/x',
  'sk-... and pa-... and ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx',
  'app_hash: ocf6ZOhYzki/RN8lwiU/5iCxjNY+s1GldJ54hG1/weU=',
  'eyJmb28iOiJiYXIifQ.eyJiYXoiOjF9.c2lnbmF0dXJlLW5vdC1hLWp3dA',
  'access_token: REPLACE_ME',
  'the private key never leaves the node\n',
];

/** Median and p95 milliseconds of `fn` over RUNS runs, after a warm-up. */
function measure(fn: () => unknown): { median: number; p95: number } {
  for (let i = 0; i < 5; i++) fn();
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    fn();
    samples.push(performance.now() - start);
  }
  return { median: percentile(samples, 50), p95: percentile(samples, 95) };
}

export async function secretsSuite(log: (line: string) => void): Promise<Record<string, number>> {
  const figures: Record<string, number> = {};
  for (const [name, pieces] of [
    ['plain', PLAIN],
    ['dense', DENSE],
  ] as const) {
    const text = fill(pieces, 100_000);
    if (findSecrets(text).length) throw new Error(`the ${name} text must hold no secret`);
    const t = measure(() => findSecrets(text));
    figures[`prose_100k_${name}_median_ms`] = round(t.median, 3);
    figures[`prose_100k_${name}_p95_ms`] = round(t.p95, 3);
    figures[`prose_100k_${name}_ms_per_kb`] = round(t.median / (text.length / 1024), 4);
    log(
      `100,000-character ${name} prose: median ${round(t.median, 3)} ms (${round(t.median / (text.length / 1024), 4)} ms/KB), p95 ${round(t.p95, 3)} ms`,
    );
  }

  // Worst cases: what each gate lets through, repeated for 100,000 characters (no secret in any).
  const adversarial: Record<string, string> = {
    pem_begins: '-----BEGIN RSA PRIVATE KEY-----\nMIIE\n',
    assignments: 'password: x api_key=y ',
    urls: 'postgres://u:p@',
    jwt_headers: 'eyJhbGciOiJIUzI1NiJ9.x ',
    bearer: 'Bearer abc ',
    // Each `mysql` opens a look of up to 300 characters for a -p; each SID a 600-character window for its secret.
    command_lines: 'mysql -u app -h db.internal ',
    twilio_sids: 'SK2a5b8c1d4e7f0a3b6c9d2e5f8a1b4c7d0e ',
    env_names: 'DB_PASS=x BOT_TOKEN=y SIGNING_KEY=z discord ',
  };
  for (const [name, piece] of Object.entries(adversarial)) {
    const text = fill([piece.trim()], 100_000);
    const t = measure(() => findSecrets(text));
    figures[`worst_${name}_100k_median_ms`] = round(t.median, 3);
    log(`100,000 characters of ${JSON.stringify(piece.trim())}: median ${round(t.median, 3)} ms`);
  }

  const changeset: ChangesetInput = {
    collection: 'ops',
    operations: Array.from({ length: 50 }, (_, i) => ({
      op: 'create' as const,
      node_type: 'decision' as const,
      title: `Decision ${i}`,
      prose: fill(i % 2 ? PLAIN : DENSE, 2_000),
      body: { question: 'Which store?', alternatives: [{ option: 'postgres://app@db/app', rejected_because: 'password: <secret>' }] },
    })),
  };
  const g = measure(() => secretsInChangeset(changeset));
  figures.changeset_50x2k_median_ms = round(g.median, 3);
  log(`guard over a 50-operation changeset of 2,000-character proses: median ${round(g.median, 3)} ms`);

  const corpora = path.resolve(here, '../../../shared/eval');
  for (const corpus of ['cometbft-docs', 'cortex-docs']) {
    const dir = path.join(corpora, corpus);
    if (!existsSync(dir)) {
      log(`${corpus}: not on this machine, skipped`);
      continue;
    }
    const sections = (await readDocTree(dir)).files.flatMap((f) => ('sections' in f ? f.sections : []));
    const chars = sections.reduce((n, s) => n + s.body.length, 0);
    const records = sections.map((s) => [s, sectionRecord(s)] as const);
    const t = measure(() => records.flatMap(([s, r]) => sectionSecrets(s, r)));
    figures[`${corpus}_sections`] = sections.length;
    figures[`${corpus}_findings`] = records.flatMap(([s, r]) => sectionSecrets(s, r)).length;
    figures[`${corpus}_median_ms`] = round(t.median, 2);
    figures[`${corpus}_ms_per_kb`] = round(t.median / (chars / 1024), 4);
    log(
      `${corpus}: ${sections.length} sections, ${round(chars / 1024, 0)} KiB, median ${round(t.median, 2)} ms (${round(t.median / (chars / 1024), 4)} ms/KB), findings ${figures[`${corpus}_findings`]}`,
    );
  }
  return figures;
}
