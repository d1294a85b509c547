// The converted word table on disk: read it when it is there and sound, otherwise convert the
// package's JSON once and cache the result under the cache folder, keyed by the package's
// name@version and the table format, so an upgrade (of either) reconverts.
import { readFileIfExists } from '../../lib/read-if-exists.js';
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Log } from '../../lib/log.js';
import { convertWinkJson } from './convert.js';
import type { VectorPackage } from './vector-package.js';
import { decodeTable, TABLE_FORMAT, TableFormatError, type WordTable } from './word-table.js';

export interface LoadedTable {
  table: WordTable;
  /** "cache" when the file was read, "converted" when the JSON was parsed this time. */
  origin: 'cache' | 'converted';
  file: string;
}

export function tableFile(cacheDir: string, pkg: VectorPackage): string {
  return path.join(cacheDir, 'glove', `${pkg.label.replace(/[^A-Za-z0-9._@-]+/g, '_')}.t${TABLE_FORMAT}.bin`);
}

/**
 * Writes `bytes` under a unique temporary name, fsyncs, then renames over `file`: concurrent
 * first starts each write a whole table and the last rename wins, so no reader ever sees a
 * partial file.
 */
async function writeAtomically(file: string, bytes: Buffer): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    const handle = await open(temp, 'wx');
    try {
      await handle.writeFile(bytes);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
  const dir = await open(path.dirname(file), 'r'); // the rename itself is durable once the folder is synced
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}

async function readCached(file: string, pkg: VectorPackage, log: Log): Promise<WordTable | undefined> {
  const bytes = await readFileIfExists(file);
  if (!bytes) return undefined;
  try {
    return decodeTable(bytes, pkg.label);
  } catch (err) {
    if (!(err instanceof TableFormatError)) throw err;
    log.warn(`word table ${file} is unusable (${err.message}): rebuilding it from ${pkg.label}`);
    return undefined;
  }
}

export async function loadWordTable(opts: { pkg: VectorPackage; cacheDir: string; log: Log }): Promise<LoadedTable> {
  const { pkg, log } = opts;
  const file = tableFile(opts.cacheDir, pkg);
  const cached = await readCached(file, pkg, log);
  if (cached) return { table: cached, origin: 'cache', file };
  log.info(`converting the ${pkg.label} word vectors into ${file} (once per version, ~10 s)`);
  const started = performance.now();
  const { bytes } = await convertWinkJson(pkg.jsonPath, pkg.label);
  try {
    await writeAtomically(file, bytes);
  } catch (err) {
    // An unwritable cache costs a conversion per process, not the vectors.
    log.warn(`could not cache the word table at ${file} (${(err as Error).message}): it will be converted again next start`);
  }
  const table = decodeTable(bytes, pkg.label);
  log.info(`word table ready: ${table.count} words × ${table.dims} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return { table, origin: 'converted', file };
}

// A process needs the 35 MB table once whatever number of embedders it builds: the promise per
// table file is kept for the process's life (a failure too, so a broken source is not
// reparsed on every query). Results never depend on this cache, only the cost does.
const shared = new Map<string, Promise<WordTable>>();

export function sharedWordTable(opts: { pkg: VectorPackage; cacheDir: string; log: Log }): Promise<WordTable> {
  const file = tableFile(opts.cacheDir, opts.pkg);
  let table = shared.get(file);
  if (!table) shared.set(file, (table = loadWordTable(opts).then((l) => l.table)));
  return table;
}
