// Reads the doc ingester's watched set under a root into the ingester's file list: each file's
// sections, or why it could not be read. Symbolic links are followed only inside the root
// (tree.ts): one that is not is a file the run could not read (its sections are kept), listed in
// `skippedLinks` too. The read is injectable, so a failure can be staged.
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { isWatchedPath, splitMarkdown } from './sections.js';
import { listDocTree, readDocFileSync, realRoot, resolveDocFile, type SkippedLink } from './tree.js';
import type { FileRead } from './types.js';

/** Reads one repository-relative file as text (the default reads the real path the walk checked). */
export type ReadDoc = (relPath: string) => Promise<string>;

export interface WalkOptions {
  /** Read only these repository-relative files (a run forced to a subset). */
  only?: string[];
  read?: ReadDoc;
}

export interface WalkReport {
  files: FileRead[];
  sections: number;
  belowFloor: number;
  truncated: number;
  /** section_keys a file repeated (kept as -2, -3…). */
  repeated: string[];
  /** Symbolic links not followed (out of the root, a loop, to nothing); each is also a FileRead error. */
  skippedLinks: SkippedLink[];
}

export class WalkError extends Error {}

/**
 * A `--only` path as the repository-relative, forward-slash path the walk would give it
 * (`./docs/a.md`, `docs\a.md` or an absolute path under the root all become `docs/a.md`). Throws
 * a WalkError for a path outside the root or outside the watched set.
 */
export function onlyPath(root: string, given: string): string {
  const abs = path.resolve(root, given);
  const rel = path.relative(path.resolve(root), abs).split(path.sep).join('/');
  if (!rel || rel.startsWith('../') || rel === '..' || path.isAbsolute(rel)) throw new WalkError(`${given} is not inside ${root}`);
  if (!isWatchedPath(rel)) {
    throw new WalkError(`${given} is not a watched document (docs/**/*.md outside docs/archive, CLAUDE.md, README.md, repos/<x>/CLAUDE.md or README.md)`);
  }
  return rel;
}

const reason = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Files read between two turns of the event loop (~1 ms of reading and splitting). */
const YIELD_EVERY = 16;

/**
 * The default reader: each file at the real path the walk checked, read in this thread
 * (readDocFileSync). Through promises, 600 files cost ~50 ms of round trips to the thread pool, a
 * sixth of an unchanged rerun (docs/eval.md, "Writes and upkeep").
 */
function readInThread(real: Map<string, string | undefined>, missing: (rel: string) => Error): ReadDoc {
  return async (rel) => {
    const at = real.get(rel);
    if (!at) throw missing(rel);
    return readDocFileSync(at);
  };
}

/** The files to read: the walk's, or the named ones (resolved, links checked), with the real path of each. */
async function filesToRead(root: string, opts: WalkOptions, report: WalkReport, unlisted: FileRead[]): Promise<Map<string, string | undefined>> {
  const rootReal = await realRoot(root);
  const real = new Map<string, string | undefined>();
  if (opts.only?.length) {
    for (const rel of new Set(opts.only.map((p) => onlyPath(root, p)))) {
      const r = await resolveDocFile(rootReal, rel);
      if ('reason' in r) report.skippedLinks.push(r);
      else real.set(rel, 'real' in r ? r.real : undefined);
    }
    return real;
  }
  let rootError: Error | undefined;
  const tree = await listDocTree(root, (dir, err) => {
    if (dir === '') rootError = err;
    else unlisted.push({ path: `${dir}/`, error: `could not list the directory: ${reason(err)}` });
  });
  if (rootError) throw new WalkError(`cannot read ${root}: ${rootError.message}`);
  for (const f of tree.files) real.set(f.path, f.real);
  report.skippedLinks.push(...tree.skippedLinks);
  return real;
}

export async function readDocTree(root: string, opts: WalkOptions = {}): Promise<WalkReport> {
  // A root that is not there is a mistake, not an empty tree.
  const isDir = await stat(root).then((s) => s.isDirectory(), (err: Error) => err);
  if (isDir !== true) throw new WalkError(`cannot read ${root}: ${isDir instanceof Error ? isDir.message : 'not a directory'}`);
  const report: WalkReport = { files: [], sections: 0, belowFloor: 0, truncated: 0, repeated: [], skippedLinks: [] };
  const unlisted: FileRead[] = [];
  const real = await filesToRead(root, opts, report, unlisted);
  const missing = (rel: string) => Object.assign(new Error(`ENOENT: no such file, ${rel}`), { code: 'ENOENT' });
  const read: ReadDoc = opts.read ?? readInThread(real, missing);

  let n = 0;
  for (const rel of real.keys()) {
    // The default reader blocks: let the event loop in between a few files.
    if (++n % YIELD_EVERY === 0) await new Promise((resolve) => setImmediate(resolve));
    let text: string;
    try {
      text = await read(rel);
    } catch (err) {
      // A named file that is not there is gone, as the full walk would see it (no sections, so
      // the reap may retract them within that file); any other failure keeps its sections.
      if (opts.only?.length && (err as NodeJS.ErrnoException)?.code === 'ENOENT') report.files.push({ path: rel, sections: [] });
      else report.files.push({ path: rel, error: reason(err) });
      continue;
    }
    const split = splitMarkdown(rel, text);
    report.files.push({ path: rel, sections: split.sections });
    report.sections += split.sections.length;
    report.belowFloor += split.belowFloor;
    report.truncated += split.truncated;
    report.repeated.push(...split.repeated);
  }
  report.files.push(...unlisted, ...report.skippedLinks.map((l) => ({ path: l.path, error: l.reason })));
  return report;
}
