// A generated docs tree for the ingest benchmark: ~600 Markdown files, ~5,000 sections past the
// 200-character floor, an architecture folder, a few sections over the 2,400 cut, and some under
// the floor — the shapes a real docs/ folder has. Deterministic for a seed.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { rng } from './synthetic.js';

const TOPICS = ['billing', 'auth', 'search', 'webhooks', 'ledger', 'exports', 'scheduler', 'storage', 'gateway', 'payouts', 'tax', 'fraud'];
const HEADINGS = [
  'Overview',
  'Context',
  'Decision',
  'Consequences',
  'How it works',
  'Configuration',
  'Failure modes',
  'Operations',
  'Data model',
  'API',
  'Limits',
  'Testing',
  'Rollout',
  'Security',
  'Observability',
  'Migration',
];
const WORDS = (
  'the service records every request before it answers so retries stay idempotent and the ledger reconciles ' +
  'each write is versioned and a failed batch is retried with backoff while the queue keeps its order ' +
  'operators read the dashboard to see throughput latency and errors per tenant and region'
).split(' ');

function prose(r: ReturnType<typeof rng>, chars: number): string {
  const out: string[] = [];
  let n = 0;
  while (n < chars) {
    const sentence = Array.from({ length: r.int(8, 18) }, () => r.pick(WORDS)).join(' ');
    const s = `${sentence[0]!.toUpperCase()}${sentence.slice(1)}.`;
    out.push(s);
    n += s.length + 1;
    if (r.next() < 0.2) out.push('\n\n');
  }
  return out.join(' ').replace(/ \n\n /g, '\n\n');
}

export interface GeneratedTree {
  root: string;
  files: string[];
}

/** Writes the tree under `root`; returns the repo-relative paths written. */
export async function writeDocsTree(root: string, files = 600, seed = 11): Promise<GeneratedTree> {
  const r = rng(seed);
  const written: string[] = [];
  for (let f = 0; f < files; f++) {
    const topic = TOPICS[f % TOPICS.length]!;
    const dir = f % 5 === 0 ? `docs/architecture/${topic}` : `docs/${topic}`;
    const rel = `${dir}/${topic}-${f}.md`;
    const sections = r.int(7, 10);
    const parts = [`# ${topic} ${f}\n\n${prose(r, r.int(250, 600))}\n`];
    for (let s = 0; s < sections; s++) {
      const roll = r.next();
      const size = roll < 0.05 ? r.int(40, 180) : roll < 0.08 ? r.int(2600, 4000) : r.int(300, 1400);
      parts.push(`${s % 3 === 2 ? '###' : '##'} ${HEADINGS[s % HEADINGS.length]} ${s}\n\n${prose(r, size)}\n`);
    }
    await mkdir(path.join(root, dir), { recursive: true });
    await writeFile(path.join(root, rel), parts.join('\n'));
    written.push(rel);
  }
  return { root, files: written };
}
