// A push to the repository's default branch → the documentation-alignment scan over what it
// changed (the compare API's files and patches; the push's own file lists when compare fails), and
// one `log` record per changed file that docs expect at medium confidence or above, in the
// workspace's doc-alignment collection: "docs that expect `consensus/wal.go`, changed in a1b2c3d".
// The log names the doc paths, so a brief touching one of those docs finds it, in motion.
// Runs in the delivery job, never in the webhook's ack.
import type { ChangedFile } from '../../align/diff.js';
import type { AlignReport, FileReport } from '../../align/report.js';
import { alignChanges } from '../../align/scan.js';
import { emptyReport, ensureItemCollection, writeItems, type ItemContent, type ItemsReport } from '../items.js';
import type { ConnectorDeps } from '../kind.js';
import { requireClient, type GithubTarget } from './scope.js';

export interface PushAlignEvent {
  ref?: string;
  before?: string;
  after?: string;
  deleted?: boolean;
  repository?: { default_branch?: string; master_branch?: string };
  commits?: { added?: string[]; modified?: string[]; removed?: string[] }[];
}

export const ALIGN_COLLECTION = 'doc-alignment';
/** The collection's template: one that takes logs (alignment reports measure the docs against the code). */
const ALIGN_TEMPLATE = 'evals';
const NO_COMMIT = /^0+$/;

interface CompareFile {
  filename: string;
  patch?: string;
}

/** The default branch: the payload says it (GitHub's push payloads carry the repository); else the repository API. */
async function defaultBranch(deps: ConnectorDeps, target: GithubTarget, push: PushAlignEvent): Promise<string | undefined> {
  const named = push.repository?.default_branch ?? push.repository?.master_branch;
  if (named) return named;
  const { json } = await requireClient(deps).get<{ default_branch?: string }>(target.installationId, `repos/${target.repo}`);
  return json?.default_branch;
}

async function changedFiles(deps: ConnectorDeps, target: GithubTarget, push: PushAlignEvent): Promise<ChangedFile[]> {
  const fromCommits = () =>
    [...new Set((push.commits ?? []).flatMap((c) => [...(c.added ?? []), ...(c.modified ?? []), ...(c.removed ?? [])]))].map((path) => ({
      path,
    }));
  if (!push.before || NO_COMMIT.test(push.before)) return fromCommits();
  try {
    const { json } = await requireClient(deps).get<{ files?: CompareFile[] }>(
      target.installationId,
      `repos/${target.repo}/compare/${push.before}...${push.after}`,
    );
    const files = (json?.files ?? []).map((f) => (f.patch ? { path: f.filename, patch: f.patch } : { path: f.filename }));
    return files.length ? files : fromCommits();
  } catch (err) {
    deps.log.warn(
      `github push ${target.repo}@${push.after}: compare failed (${(err as Error).message}); scanning the push's file list without patches`,
    );
    return fromCommits();
  }
}

/** The log of one changed file's expectations (medium and high only: a brief should not carry hints). */
export function alignLog(repo: string, branch: string, push: { before: string; after: string }, file: FileReport): ItemContent | undefined {
  const firm = file.expectations.filter((e) => e.confidence !== 'low');
  if (!firm.length) return undefined;
  const short = push.after.slice(0, 7);
  const title = `docs that expect \`${file.path}\`, changed in ${short}`;
  const intro = `Docs that expect \`${file.path}\`, changed in ${short} (pushed to ${branch} of ${repo}):`;
  const expectations = firm.map((e) => ({
    id: e.id,
    section_key: e.section_key,
    confidence: e.confidence,
    score: e.score,
    reason: e.reason,
    line: `- ${e.confidence} (${e.score.toFixed(2)}): ${e.path} — ${e.heading} (${e.reasons.join('; ')})`,
  }));
  return {
    externalId: `align:${repo}@${push.after}:${file.path}`,
    nodeType: 'log',
    title,
    // The prose is the intro and one line per expectation, joined by newlines: sql/alignment.sql
    // rebuilds it the same way when a listed section is revised and leaves the log.
    prose: [intro, ...expectations.map((e) => e.line)].join('\n'),
    body: {
      source_kind: 'github',
      pointer: { repo, commit: push.after, path: file.path, url: `https://github.com/${repo}/commit/${push.after}` },
      align: { base: push.before, head: push.after, branch, path: file.path, intro, expectations, settled: [] },
    },
  };
}

/** Scans a push to the default branch and stores its report; any other push changes nothing here. */
export async function alignPush(deps: ConnectorDeps, target: GithubTarget, push: PushAlignEvent, summary: string): Promise<ItemsReport> {
  const branch = push.ref?.startsWith('refs/heads/') ? push.ref.slice('refs/heads/'.length) : undefined;
  if (!deps.search || !branch || push.deleted || !push.after || NO_COMMIT.test(push.after)) return emptyReport();
  if (branch !== (await defaultBranch(deps, target, push))) return emptyReport();
  const changed = await changedFiles(deps, target, push);
  if (!changed.length) return emptyReport();
  const report: AlignReport = await alignChanges({ sql: deps.sql, ...deps.search }, target.scope.workspaceId, {
    changed,
    base: push.before ?? null,
    head: push.after,
  });
  const logs = report.files
    .map((f) => alignLog(target.repo, branch, { before: push.before ?? '', after: push.after! }, f))
    .filter((x): x is ItemContent => !!x);
  deps.log.info(
    `github push ${target.repo}@${push.after.slice(0, 7)}: ${report.summary.expectations} doc expectation(s) of ${report.summary.files} changed file(s), ${logs.length} logged`,
  );
  if (!logs.length) return emptyReport();
  const collection = await ensureItemCollection(
    deps.db,
    target.scope.workspaceId,
    ALIGN_COLLECTION,
    ALIGN_TEMPLATE,
    'Which docs expect code that changed on a default branch: one log per changed file of each push, written by the alignment scan.',
    'Doc alignment',
  );
  return writeItems(deps.sql, { ...target.scope, collectionId: collection.id }, logs, {
    summary: `${summary}: alignment of ${target.repo}@${push.after.slice(0, 7)}`,
  });
}
