// The ingest benchmark: a generated tree of ~5,000 sections in ~600 files (and, with
// --corpus DIR, a real docs tree such as ../shared/eval/cometbft-docs): the first ingest, a
// rerun with nothing changed (no embedding may happen), and a rerun after editing one section —
// each timed from reading the tree to the last chunk indexed.
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ingestDocSections } from '../src/ingest/docs/ingest.js';
import { readDocTree } from '../src/ingest/docs/walk.js';
import { makeLog } from '../src/lib/log.js';
import { drainOutbox } from '../src/indexing/drain.js';
import { ensurePrincipal } from '../src/auth/workspaces.js';
import { writeDocsTree } from './docs-tree.js';
import { startBenchDoco, type BenchDoco } from './harness.js';
import { round, timeIt } from './stats.js';

async function ingestOnce(doco: BenchDoco, principalId: string, root: string) {
  const tree = await readDocTree(root);
  const report = await ingestDocSections(
    { sql: doco.sql, db: doco.db },
    { workspaceId: doco.workspaceId, principalId, source: 'fs', root, files: tree.files },
  );
  const drained = await drainOutbox({ sql: doco.sql, log: makeLog('warn'), ...doco.providers }, { batchSize: 500 });
  return { report, drained, sections: tree.sections };
}

/** Rewrites the body of the first ## section of the first architecture file (or any file). */
async function editOneSection(root: string, files: string[]): Promise<string> {
  const rel = files.find((f) => f.startsWith('docs/architecture/')) ?? files[0]!;
  const file = path.join(root, rel);
  const text = await readFile(file, 'utf8');
  const at = text.indexOf('\n## ');
  const end = text.indexOf('\n', at + 4);
  await writeFile(
    file,
    `${text.slice(0, end + 1)}\nThis paragraph was added by the benchmark so that exactly one section changes and must be re-embedded.\n${text.slice(end + 1)}`,
  );
  return rel;
}

async function measureTree(label: string, root: string, files: string[], log: (l: string) => void): Promise<Record<string, number>> {
  const doco = await startBenchDoco();
  try {
    const principalId = await ensurePrincipal(doco.db, doco.workspaceId, 'bench', 'cli');
    const [firstMs, first] = await timeIt(() => ingestOnce(doco, principalId, root));
    log(
      `${label}: ${first.sections} sections → created ${first.report.created}, ${first.drained.chunksEmbedded} chunks embedded in ${(firstMs / 1000).toFixed(1)} s`,
    );
    const [rerunMs, rerun] = await timeIt(() => ingestOnce(doco, principalId, root));
    log(`${label}: rerun skipped ${rerun.report.skipped}, ${rerun.drained.chunksEmbedded} embedded in ${(rerunMs / 1000).toFixed(2)} s`);
    const edited = await editOneSection(root, files);
    const [editMs, edit] = await timeIt(() => ingestOnce(doco, principalId, root));
    log(
      `${label}: one edit in ${edited} → updated ${edit.report.updated}, ${edit.drained.chunksEmbedded} embedded in ${(editMs / 1000).toFixed(2)} s`,
    );
    const suffix = label === 'generated' ? '' : `_${label}`;
    return {
      [`sections${suffix}`]: first.sections,
      [`ingest_first_s${suffix}`]: round(firstMs / 1000),
      [`ingest_rerun_s${suffix}`]: round(rerunMs / 1000),
      [`embeddings_on_rerun${suffix}`]: rerun.drained.chunksEmbedded,
      [`ingest_one_edit_s${suffix}`]: round(editMs / 1000),
      [`embeddings_on_one_edit${suffix}`]: edit.drained.chunksEmbedded,
    };
  } finally {
    await doco.stop();
  }
}

export async function ingestSuite(log: (line: string) => void, args: string[]): Promise<Record<string, number>> {
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'doco-bench-docs-'));
  try {
    const tree = await writeDocsTree(path.join(scratch, 'generated'));
    const figures = await measureTree('generated', tree.root, tree.files, log);
    const at = args.indexOf('--corpus');
    if (at >= 0 && args[at + 1]) {
      // A copy, so the one-section edit never touches the corpus itself.
      const copy = path.join(scratch, 'corpus');
      await cp(path.resolve(args[at + 1]!), copy, { recursive: true });
      const files = (await readDocTree(copy)).files.map((f) => f.path);
      Object.assign(figures, await measureTree('corpus', copy, files, log));
    }
    return figures;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
