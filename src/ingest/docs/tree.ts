// The doc ingester's watched set on disk, kept inside its root (docs/ingest.md, "The contract"):
// the listing and the reads resolve symbolic links and follow one only when what it resolves to is
// inside the root's real path; one resolving elsewhere, into a loop or to nothing is not followed
// and is reported. A file is read at the real path the check passed, opened without following a
// link in its last step, and only when it is a regular file.
import { closeSync, constants, fstatSync, openSync, readFileSync, type Dirent } from 'node:fs';
import { open, readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';

const SKIP_DIRS = new Set(['node_modules', '.git', 'dist']);
/** A name the walk never enters or reads: dotted, node_modules, .git, dist. */
export const isSkippedName = (name: string) => name.startsWith('.') || SKIP_DIRS.has(name);

/** A symbolic link the walk did not follow; `path` ends in '/' for one that names a directory. */
export interface SkippedLink {
  path: string;
  reason: string;
}

export interface DocTree {
  /** The watched files, repository-relative with forward slashes, each with the real path it is read at. */
  files: { path: string; real: string }[];
  skippedLinks: SkippedLink[];
}

/** Called for a directory of the walk that exists but could not be listed (its files are unknown). */
export type OnUnreadableDir = (relDir: string, err: Error) => void;

const code = (err: unknown) => (err as NodeJS.ErrnoException)?.code;

/** Whether `real` is `rootReal` or under it. */
export function isInside(rootReal: string, real: string): boolean {
  const rel = path.relative(rootReal, real);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

type Resolved = { kind: 'file' | 'dir'; real: string } | { kind: 'skip'; reason: string; dir?: boolean } | { kind: 'none' };

const LINK_OUT = 'a symbolic link that resolves outside the root: not followed';
const LINK_LEFT_OUT = 'a symbolic link into a path the docs tree leaves out (dotted, node_modules, dist or docs/archive): not followed';
const LINK_NOT_MARKDOWN = 'a symbolic link to a file that is not Markdown (.md): not followed';

/** What an absolute path is once every link in it is resolved: a file or directory inside the root, a link skipped, or nothing. */
async function resolve(rootReal: string, abs: string): Promise<Resolved> {
  let real: string;
  try {
    real = await realpath(abs);
  } catch (err) {
    if (code(err) === 'ENOENT') return { kind: 'none' };
    if (code(err) === 'ELOOP') return { kind: 'skip', reason: 'a loop of symbolic links: not followed' };
    return { kind: 'skip', reason: `a path that cannot be resolved (${code(err) ?? (err as Error).message}): not followed` };
  }
  const st = await stat(real).catch(() => undefined);
  const kind = st?.isDirectory() ? 'dir' : st?.isFile() ? 'file' : undefined;
  if (!isInside(rootReal, real)) return { kind: 'skip', reason: LINK_OUT, dir: kind === 'dir' };
  // Inside the root is not enough: `docs/env.md -> ../.env` made the secrets file a record any
  // token could read (a hostile review). A link reaches only what the walk itself would read.
  const parts = path.relative(rootReal, real).split(path.sep);
  if (parts.some(isSkippedName) || (parts[0] === 'docs' && parts[1] === 'archive'))
    return { kind: 'skip', reason: LINK_LEFT_OUT, dir: kind === 'dir' };
  if (kind === 'file' && !real.endsWith('.md')) return { kind: 'skip', reason: LINK_NOT_MARKDOWN };
  return kind ? { kind, real } : { kind: 'none' };
}

/** One entry of a directory the walk lists; a link is resolved, anything else is taken as listed. */
async function entryOf(rootReal: string, dirReal: string, e: Dirent): Promise<Resolved> {
  const abs = path.join(dirReal, e.name);
  if (e.isDirectory()) return { kind: 'dir', real: abs };
  if (e.isFile()) return { kind: 'file', real: abs };
  if (!e.isSymbolicLink()) return { kind: 'none' };
  const resolved = await resolve(rootReal, abs);
  // A link that resolves to nothing, or into a loop, is reported only where it would have been read.
  if (resolved.kind === 'none' && e.name.endsWith('.md')) return { kind: 'skip', reason: 'a symbolic link to nothing: not followed' };
  return resolved;
}

interface Walk {
  rootReal: string;
  tree: DocTree;
  onUnreadable: OnUnreadableDir | undefined;
}

async function list(w: Walk, rel: string, dirReal: string): Promise<Dirent[]> {
  try {
    return (await readdir(dirReal, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
  } catch (err) {
    if (code(err) !== 'ENOENT') w.onUnreadable?.(rel, err as Error);
    return [];
  }
}

/** A link not followed is reported when it would have been read: a .md file, or a directory. */
function skip(w: Walk, rel: string, r: Resolved & { kind: 'skip' }, isDocName: boolean): void {
  if (r.dir) w.tree.skippedLinks.push({ path: `${rel}/`, reason: r.reason });
  else if (isDocName) w.tree.skippedLinks.push({ path: rel, reason: r.reason });
}

/** docs/**\/*.md under `rel`; `ancestors` are the real directories above, so a link back up is a loop, not a descent. */
async function walkDocs(w: Walk, rel: string, dirReal: string, ancestors: string[]): Promise<void> {
  for (const e of await list(w, rel, dirReal)) {
    if (isSkippedName(e.name)) continue;
    const child = `${rel}/${e.name}`;
    if (child === 'docs/archive') continue;
    const r = await entryOf(w.rootReal, dirReal, e);
    if (r.kind === 'skip') skip(w, child, r, e.name.endsWith('.md'));
    else if (r.kind === 'dir') {
      if (ancestors.includes(r.real) || r.real === dirReal) w.tree.skippedLinks.push({ path: `${child}/`, reason: 'a loop of symbolic links: not followed' });
      else await walkDocs(w, child, r.real, [...ancestors, dirReal]);
    } else if (r.kind === 'file' && e.name.endsWith('.md')) w.tree.files.push({ path: child, real: r.real });
  }
}

/** CLAUDE.md and README.md in a directory of the walk. */
async function rootFiles(w: Walk, rel: string, dirReal: string): Promise<void> {
  const entries = await list(w, rel, dirReal);
  for (const name of ['CLAUDE.md', 'README.md']) {
    const e = entries.find((x) => x.name === name);
    if (!e) continue;
    const child = rel ? `${rel}/${name}` : name;
    const r = await entryOf(w.rootReal, dirReal, e);
    if (r.kind === 'skip') skip(w, child, r, true);
    else if (r.kind === 'file') w.tree.files.push({ path: child, real: r.real });
  }
}

/** A directory of the root named by the watched set (docs/, repos/, repos/<x>/), links resolved. */
async function namedDir(w: Walk, rel: string, parentReal: string): Promise<string | undefined> {
  const r = await resolve(w.rootReal, path.join(parentReal, path.basename(rel)));
  if (r.kind === 'skip') skip(w, rel, r, false);
  return r.kind === 'dir' ? r.real : undefined;
}

/** The root's real path: every link in it resolved, the base every check compares with. */
export const realRoot = (root: string) => realpath(root);

/**
 * The watched set, repository-relative: the root CLAUDE.md and README.md, repos/<x>/CLAUDE.md and
 * repos/<x>/README.md, and docs/**\/*.md (skipping docs/archive/, node_modules, .git, dist and
 * dotted entries), with the links not followed. A directory that exists but cannot be listed is
 * reported to `onUnreadable` (a missing docs/ or repos/ is simply not there).
 */
export async function listDocTree(root: string, onUnreadable?: OnUnreadableDir): Promise<DocTree> {
  const rootReal = await realRoot(root).catch((err: Error) => {
    onUnreadable?.('', err);
    return undefined;
  });
  const w: Walk = { rootReal: rootReal ?? '', tree: { files: [], skippedLinks: [] }, onUnreadable };
  if (!rootReal) return w.tree;
  await rootFiles(w, '', rootReal);
  const repos = await namedDir(w, 'repos', rootReal);
  if (repos) {
    for (const e of await list(w, 'repos', repos)) {
      if (isSkippedName(e.name)) continue;
      const r = await entryOf(rootReal, repos, e);
      if (r.kind === 'skip') skip(w, `repos/${e.name}`, r, false);
      else if (r.kind === 'dir') await rootFiles(w, `repos/${e.name}`, r.real);
    }
  }
  const docs = await namedDir(w, 'docs', rootReal);
  if (docs) await walkDocs(w, 'docs', docs, [rootReal]);
  return w.tree;
}

/** The watched set's paths (docs/ingest.md): listDocTree without the real paths and skipped links. */
export async function listDocFiles(root: string, onUnreadable?: OnUnreadableDir): Promise<string[]> {
  return (await listDocTree(root, onUnreadable)).files.map((f) => f.path);
}

/**
 * One repository-relative file named outright (a run forced to `--only` files): its real path
 * inside the root, `none` when it is not there, or why it is not followed.
 */
export async function resolveDocFile(rootReal: string, rel: string): Promise<{ real: string } | { none: true } | SkippedLink> {
  const r = await resolve(rootReal, path.join(rootReal, ...rel.split('/')));
  if (r.kind === 'skip') return { path: rel, reason: r.reason };
  if (r.kind === 'none') return { none: true };
  if (r.kind === 'dir') return { path: rel, reason: 'a directory, not a file' };
  return { real: r.real };
}

/**
 * The most a docs file may hold. A docs tree is written by whoever may push to it: a file of
 * hundreds of megabytes (repeated text costs git next to nothing) held the event loop 6.7 s and
 * 628 MB while it was read and split, on every cron run. The largest file of the docs trees we
 * measure against is 332 kB; a docs pack holds at most 1,000,000 characters a file.
 */
export const MAX_DOC_FILE_BYTES = 4 * 1024 * 1024;

/** A file read only when it is a regular file and not past MAX_DOC_FILE_BYTES: else it is unreadable. */
function checkDocFile(stat: { isFile(): boolean; size: number }): void {
  if (!stat.isFile()) throw new Error('not a regular file');
  if (stat.size > MAX_DOC_FILE_BYTES) throw new Error(`${stat.size} bytes, past the ${MAX_DOC_FILE_BYTES} a docs file may hold`);
}

/**
 * Reads a file at a real path the walk checked: opened without following a link in its last step
 * (one swapped in since the check fails to open) and read only when it is a regular file (a FIFO or
 * a device is refused, never waited on).
 */
export async function readDocFile(real: string): Promise<string> {
  const fh = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    checkDocFile(await fh.stat());
    return await fh.readFile('utf8');
  } finally {
    await fh.close();
  }
}

/**
 * readDocFile in this thread: the same checks, each a plain system call. A promise's open, stat,
 * read and close are each a round trip to libuv's thread pool (~80 us a file); a docs file is
 * small and local, so a walk reads it here, and yields to the event loop between a few of them
 * (walk.ts).
 */
export function readDocFileSync(real: string): string {
  const fd = openSync(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    checkDocFile(fstatSync(fd));
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}
