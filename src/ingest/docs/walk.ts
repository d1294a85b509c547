// Reads the doc ingester's watched set under a root into the ingester's file list: each file's
// sections, or why it could not be read. The read is injectable, so a failure can be staged.
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { isWatchedPath, listDocFiles, splitMarkdown } from './sections.js';
import type { FileRead } from './types.js';

/** Reads one repository-relative file as text. */
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

export async function readDocTree(root: string, opts: WalkOptions = {}): Promise<WalkReport> {
  const read: ReadDoc = opts.read ?? ((rel) => readFile(path.join(root, rel), 'utf8'));
  // A root that is not there is a mistake, not an empty tree.
  const isDir = await stat(root).then((s) => s.isDirectory(), (err: Error) => err);
  if (isDir !== true) throw new WalkError(`cannot read ${root}: ${isDir instanceof Error ? isDir.message : 'not a directory'}`);
  const unlisted: FileRead[] = [];
  let rootError: Error | undefined;
  const paths = opts.only?.length
    ? [...new Set(opts.only.map((p) => onlyPath(root, p)))]
    : await listDocFiles(root, (dir, err) => {
        if (dir === '') rootError = err;
        else unlisted.push({ path: `${dir}/`, error: `could not list the directory: ${reason(err)}` });
      });
  if (rootError) throw new WalkError(`cannot read ${root}: ${rootError.message}`);

  const report: WalkReport = { files: [], sections: 0, belowFloor: 0, truncated: 0, repeated: [] };
  for (const rel of paths) {
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
  report.files.push(...unlisted);
  return report;
}
