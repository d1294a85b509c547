// Unified diffs as the alignment scan reads them: a whole `git diff` split into its files, and
// one file's patch (the hunks GitHub's compare API and `git diff` both give) into the lines it
// added, the lines it removed and the hunk headers' context (the enclosing function, when the
// diff tool found one).

export interface ChangedFile {
  /** Repo-relative path after the change (the old path for a deletion). */
  path: string;
  /** The unified-diff hunks for this file, when known. */
  patch?: string;
}

export interface PatchLines {
  added: string[];
  removed: string[];
  /** The text after each hunk header's second `@@`: e.g. `func (wal *BaseWAL) Write(msg WALMessage) error {`. */
  contexts: string[];
}

/** One file's hunks → its added and removed lines; file headers (`---`, `+++`, `diff --git`) are skipped. */
export function patchLines(patch: string): PatchLines {
  const out: PatchLines = { added: [], removed: [], contexts: [] };
  let inHunk = false;
  for (const line of patch.split(/\r?\n/)) {
    if (line.startsWith('@@')) {
      inHunk = true;
      const context = line.replace(/^@@[^@]*@@ ?/, '').trim();
      if (context) out.contexts.push(context);
      continue;
    }
    if (!inHunk) continue;
    if (line.startsWith('diff --git ')) {
      inHunk = false;
      continue;
    }
    if (line.startsWith('+')) out.added.push(line.slice(1));
    else if (line.startsWith('-')) out.removed.push(line.slice(1));
  }
  return out;
}

const unquote = (p: string) => (p.startsWith('"') && p.endsWith('"') ? p.slice(1, -1).replace(/\\(.)/g, '$1') : p);
const stripPrefix = (p: string) => unquote(p).replace(/^[ab]\//, '');

/**
 * A whole `git diff` (as `git diff --no-color` prints it) → one entry per file, in order, each
 * with its own hunks. A deleted file keeps its old path; a rename is reported under its new path.
 */
export function splitGitDiff(diff: string): ChangedFile[] {
  const files: ChangedFile[] = [];
  let current: { path: string; lines: string[]; inHunks: boolean } | undefined;
  const flush = () => {
    if (!current) return;
    const patch = current.lines.join('\n');
    files.push(patch.includes('@@') ? { path: current.path, patch } : { path: current.path });
  };
  for (const line of diff.split(/\r?\n/)) {
    const header = line.match(/^diff --git (?:"?a\/)(.+?)"? (?:"?b\/)(.+?)"?$/);
    if (header) {
      flush();
      current = { path: stripPrefix(header[2]!), lines: [], inHunks: false };
      continue;
    }
    if (!current) continue;
    if (line.startsWith('@@')) current.inHunks = true;
    const inHeader = !current.inHunks;
    // File header lines come before the first hunk; inside a hunk `+++ x` is an added `++ x`.
    if (inHeader && line.startsWith('+++ ')) {
      if (!line.startsWith('+++ /dev/null')) current.path = stripPrefix(line.slice(4).trim());
    } else if (!(inHeader && line.startsWith('--- '))) current.lines.push(line);
  }
  flush();
  return files;
}
