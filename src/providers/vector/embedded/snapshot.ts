// The embedded index on disk: one file per embedder identity, replaced whole or not at all.
// It is written under a temporary name, synced, renamed over the previous one, and its folder
// synced, so a crash at any moment leaves the previous snapshot or the new one, never neither
// and never a mix. A CRC-32 over the payload catches a torn or damaged file, which reads as no
// snapshot: the index is then rebuilt from Postgres.
//
// Layout: "DOCOSNP2", the header's length (u32 LE), the header (JSON, space-padded to a multiple
// of 4 bytes), then vectors (f32, count × dims), sparse offsets (u32, count + 1), sparse terms
// (u32), sparse weights (f32) and the points' metadata as column arrays (JSON).
import { readFileIfExists } from '../../../lib/read-if-exists.js';
import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, rename, rm, type FileHandle } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import type { CrashHook } from '../../../lib/crash-point.js';
import { EmbeddedIndex, type EmbeddedIndexOptions, type PointMeta } from './memory-index.js';

const MAGIC = Buffer.from('DOCOSNP2', 'latin1');
const FORMAT = 2;
const COLUMNS: (keyof PointMeta)[] = ['id', 'nodeId', 'tenant', 'collectionId', 'nodeType', 'shape', 'sourceKind'];

interface Header {
  format: number;
  identity: string;
  dims: number;
  watermark: number;
  count: number;
  terms: number;
  pointsBytes: number;
  endianness: string;
  crc32: number;
}

export interface LoadedSnapshot {
  index: EmbeddedIndex;
  watermark: number;
}

const isCount = (n: unknown): n is number => Number.isInteger(n) && (n as number) >= 0;

/** The snapshot in `file` as an index; undefined when it is missing, damaged or made for another embedder. */
export async function readSnapshot(
  file: string,
  identity: string,
  dims: number,
  options: EmbeddedIndexOptions = {},
): Promise<LoadedSnapshot | undefined> {
  const bytes = await readFileIfExists(file);
  if (!bytes) return undefined;
  if (bytes.length < 12 || !bytes.subarray(0, 8).equals(MAGIC)) return undefined;
  const headerEnd = 12 + bytes.readUInt32LE(8);
  if (headerEnd > bytes.length || headerEnd % 4 !== 0) return undefined;
  let h: Header;
  try {
    h = JSON.parse(bytes.subarray(12, headerEnd).toString('utf8')) as Header;
  } catch {
    return undefined;
  }
  if (h.format !== FORMAT || h.identity !== identity || h.dims !== dims || h.endianness !== os.endianness()) return undefined;
  if (![h.count, h.terms, h.pointsBytes, h.watermark, h.crc32].every(isCount)) return undefined;
  const sizes = [h.count * dims * 4, (h.count + 1) * 4, h.terms * 4, h.terms * 4, h.pointsBytes];
  if (headerEnd + sizes.reduce((a, b) => a + b, 0) !== bytes.length) return undefined;
  if (crc32(bytes.subarray(headerEnd)) !== h.crc32) return undefined;

  // Typed arrays need 4-byte alignment: copy in the rare case the buffer does not start on it.
  const aligned = bytes.byteOffset % 4 === 0 ? bytes : Buffer.from(new Uint8Array(bytes));
  const at: number[] = [];
  sizes.reduce((offset, size) => (at.push(offset), offset + size), headerEnd);
  const f32 = (i: number) => new Float32Array(aligned.buffer, aligned.byteOffset + at[i]!, sizes[i]! / 4);
  const u32 = (i: number) => new Uint32Array(aligned.buffer, aligned.byteOffset + at[i]!, sizes[i]! / 4);
  const [vectors, offsets, terms, weights] = [f32(0), u32(1), u32(2), f32(3)];
  let points: Record<keyof PointMeta, string[]>;
  try {
    points = JSON.parse(aligned.subarray(at[4]!, at[4]! + h.pointsBytes).toString('utf8')) as Record<keyof PointMeta, string[]>;
  } catch {
    return undefined;
  }
  if (COLUMNS.some((c) => !Array.isArray(points[c]) || points[c].length !== h.count)) return undefined;
  if (offsets[0] !== 0 || offsets[h.count] !== h.terms) return undefined;

  const index = new EmbeddedIndex(dims, Math.max(1024, h.count), options);
  for (let i = 0; i < h.count; i++) {
    const from = offsets[i]!;
    const to = offsets[i + 1]!;
    if (to < from) return undefined;
    const meta = Object.fromEntries(COLUMNS.map((c) => [c, points[c][i]!])) as unknown as PointMeta;
    index.addPoint(meta, vectors.slice(i * dims, (i + 1) * dims), {
      indices: terms.subarray(from, to),
      values: weights.subarray(from, to),
    });
  }
  return { index, watermark: h.watermark };
}

/** The header and payload of `index` as buffers, in file order. */
function encode(index: EmbeddedIndex, identity: string, watermark: number): Buffer[] {
  const points = Object.fromEntries(COLUMNS.map((c) => [c, [] as string[]])) as Record<keyof PointMeta, string[]>;
  const vectors = new Float32Array(index.count * index.dims);
  const offsets = new Uint32Array(index.count + 1);
  const terms: number[] = [];
  const weights: number[] = [];
  let count = 0;
  for (const p of index.livePoints()) {
    for (const c of COLUMNS) points[c].push(p.meta[c]);
    vectors.set(p.vector, count * index.dims);
    for (let j = 0; j < p.sparse.indices.length; j++) {
      terms.push(p.sparse.indices[j]!);
      weights.push(p.sparse.values[j]!);
    }
    offsets[++count] = terms.length;
  }
  const asBytes = (a: Float32Array | Uint32Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
  const payload = [
    asBytes(vectors.subarray(0, count * index.dims)),
    asBytes(offsets.subarray(0, count + 1)),
    asBytes(new Uint32Array(terms)),
    asBytes(new Float32Array(weights)),
    Buffer.from(JSON.stringify(points), 'utf8'),
  ];
  const crc = payload.reduce((value, part) => crc32(part, value), 0);
  const header: Header = {
    format: FORMAT,
    identity,
    dims: index.dims,
    watermark,
    count,
    terms: terms.length,
    pointsBytes: payload[4]!.length,
    endianness: os.endianness(),
    crc32: crc,
  };
  let json = JSON.stringify(header);
  while ((12 + Buffer.byteLength(json)) % 4 !== 0) json += ' ';
  const head = Buffer.alloc(12);
  MAGIC.copy(head);
  head.writeUInt32LE(Buffer.byteLength(json), 8);
  return [head, Buffer.from(json, 'utf8'), ...payload];
}

async function writeAll(handle: FileHandle, buf: Buffer): Promise<void> {
  for (let done = 0; done < buf.length;) done += (await handle.write(buf, done, buf.length - done)).bytesWritten;
}

const TEMP_MARK = '.tmp-';

/** Temporary files a killed save left beside `file` (their writer's pid is gone). */
async function removeAbandonedTemps(file: string): Promise<void> {
  const base = `${path.basename(file)}${TEMP_MARK}`;
  const names = await readdir(path.dirname(file)).catch(() => [] as string[]);
  for (const name of names) {
    if (!name.startsWith(base)) continue;
    const pid = Number(name.slice(base.length).split('-')[0]);
    let alive = pid === process.pid;
    if (!alive && pid > 0) {
      try {
        process.kill(pid, 0);
        alive = true;
      } catch (err) {
        alive = (err as NodeJS.ErrnoException).code === 'EPERM';
      }
    }
    if (!alive) await rm(path.join(path.dirname(file), name), { force: true });
  }
}

/** Replaces `file` with a snapshot of `index`: whole, synced, then renamed over (see the top of this file). */
export async function writeSnapshot(
  file: string,
  index: EmbeddedIndex,
  identity: string,
  watermark: number,
  crash: CrashHook,
): Promise<void> {
  const dir = path.dirname(file);
  await mkdir(dir, { recursive: true });
  await removeAbandonedTemps(file);
  const temp = `${file}${TEMP_MARK}${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    const handle = await open(temp, 'wx');
    try {
      for (const buf of encode(index, identity, watermark)) await writeAll(handle, buf);
      await handle.sync();
    } finally {
      await handle.close();
    }
    crash('index-snapshot-before-rename');
    await rename(temp, file);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
  // The rename is durable once the folder itself is synced.
  const folder = await open(dir, 'r');
  try {
    await folder.sync();
  } finally {
    await folder.close();
  }
}
