// The embedded index on disk: one file per embedder identity, replaced whole or not at all.
// It is written under a temporary name, synced, renamed over the previous one, and its folder
// synced, so a crash at any moment leaves the previous snapshot or the new one, never neither
// and never a mix. A CRC-32 over the payload catches a torn or damaged file, which reads as no
// snapshot: the index is then rebuilt from Postgres.
//
// Layout: "DOCOSNP4", the header's length (u32 LE), the header (JSON, space-padded to a multiple
// of 4 bytes), then the index's slots as it holds them (memory-index.ts IndexParts, tombstones
// included): vectors (int8, slots × dims, padded to 4), scales (f32), liveness (u8, padded), the
// filter codes (i32, one column per attribute), the postings' terms and lengths (u32 each), their
// slots (i32), the table of distinct weights (f32, `weightCodes` of them) and each entry's code
// into it (u16, padded to 4) — or, with no table (an index past 65,536 distinct weights,
// postings.ts), each entry's weight (f32) — then where each slot's id and node id start (u32
// each) in the ids' bytes (`idBytes` of them, padded; slot-ids.ts), and the attributes'
// dictionaries (JSON). Format 3 ("DOCOSNP3") still reads: it has no table and no ids' bytes, its
// ids and node ids are in the JSON.
//
// It is written from views of the index, a piece at a time, so a save neither copies the index
// nor holds the thread while it writes: the writes are awaited (the vectors read back from the
// index's scratch file, vector-rows.ts, a megabyte at a time). (Format 2 held dequantized float32 vectors and each point's
// BM25 terms regrouped from the postings: a save of 200k chunks made 400 MB of copies and millions
// of small arrays in one go, which held the event loop for most of a second and grew the
// process's memory.) A snapshot older than format 3 is no snapshot: the index is rebuilt from
// Postgres, as after a crash.
import { readFileIfExists } from '../../../lib/read-if-exists.js';
import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, rename, rm, type FileHandle } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import type { CrashHook } from '../../../lib/crash-point.js';
import { rowsIn } from './vector-rows.js';
import { ATTRS, EmbeddedIndex, type Attr, type EmbeddedIndexOptions, type IndexParts } from './memory-index.js';
import { SlotIds, type SlotIdsParts } from './slot-ids.js';
import { MAX_WEIGHT_CODES } from './weight-table.js';

/** The format written, and the formats read with their magic. */
const FORMAT = 4;
const MAGICS = new Map([
  [3, Buffer.from('DOCOSNP3', 'latin1')],
  [4, Buffer.from('DOCOSNP4', 'latin1')],
]);
/** How much a write hands the file at once: the thread is free between writes. */
const WRITE_BYTES = 1 << 20;
/** Wide enough for any CRC-32, so the header written last is as long as the one written first. */
const CRC_PLACEHOLDER = 0xffffffff;

interface Header {
  format: number;
  identity: string;
  dims: number;
  watermark: number;
  /** The database the index was made from (doco.database_identity); absent in a snapshot written before it was kept. */
  database?: string;
  slots: number;
  postings: number;
  entries: number;
  /** Distinct weights in the table, 0 when the entries hold float32 weights (format 3: always). */
  weightCodes: number;
  /** The ids' bytes (format 3: none, the ids are in the JSON). */
  idBytes: number;
  metaBytes: number;
  endianness: string;
  crc32: number;
}

interface Meta {
  dictionaries: Record<Attr, string[]>;
  /** Format 3 only. */
  ids?: string[];
  nodeIds?: string[];
}

export interface LoadedSnapshot {
  index: EmbeddedIndex;
  watermark: number;
  database: string | undefined;
}

/** What a snapshot says of where it came from, for the caller to judge before it is loaded. */
export type SnapshotOrigin = Pick<LoadedSnapshot, 'watermark' | 'database'>;

const isCount = (n: unknown): n is number => Number.isInteger(n) && (n as number) >= 0;
const pad4 = (n: number) => (n + 3) & ~3;

/** Each section's byte length, in file order (padding included). */
function sectionSizes(h: Omit<Header, 'identity' | 'watermark' | 'endianness' | 'crc32'>): number[] {
  return [
    pad4(h.slots * h.dims), // vectors
    h.slots * 4, // scales
    pad4(h.slots), // alive
    ATTRS.length * h.slots * 4, // codes
    h.postings * 4, // terms
    h.postings * 4, // lengths
    h.entries * 4, // slots
    h.weightCodes * 4, // the weight table
    h.weightCodes > 0 ? pad4(h.entries * 2) : h.entries * 4, // weights: codes, or floats
    h.format === 3 ? 0 : h.slots * 4, // where ids start
    h.format === 3 ? 0 : h.slots * 4, // where node ids start
    pad4(h.idBytes), // the ids' bytes
    h.metaBytes,
  ];
}

/** The snapshot in `file` as an index; undefined when it is missing, damaged or made for another embedder. */
export async function readSnapshot(
  file: string,
  identity: string,
  dims: number,
  options: EmbeddedIndexOptions = {},
  fits?: (origin: SnapshotOrigin) => boolean,
): Promise<LoadedSnapshot | undefined> {
  const bytes = await readFileIfExists(file);
  if (!bytes) return undefined;
  if (bytes.length < 12) return undefined;
  const format = [...MAGICS].find(([, magic]) => bytes.subarray(0, 8).equals(magic))?.[0];
  if (format === undefined) return undefined;
  const headerEnd = 12 + bytes.readUInt32LE(8);
  if (headerEnd > bytes.length || headerEnd % 4 !== 0) return undefined;
  let h: Header;
  try {
    h = JSON.parse(bytes.subarray(12, headerEnd).toString('utf8')) as Header;
  } catch {
    return undefined;
  }
  if (h.format !== format || h.identity !== identity || h.dims !== dims || h.endianness !== os.endianness()) return undefined;
  if (format === 3) [h.weightCodes, h.idBytes] = [0, 0];
  if (h.database !== undefined && typeof h.database !== 'string') return undefined;
  if (fits && !fits({ watermark: h.watermark, database: h.database })) return undefined;
  if (![h.slots, h.postings, h.entries, h.weightCodes, h.idBytes, h.metaBytes, h.watermark, h.crc32].every(isCount)) return undefined;
  if (h.weightCodes > MAX_WEIGHT_CODES) return undefined;
  const sizes = sectionSizes(h);
  if (headerEnd + sizes.reduce((a, b) => a + b, 0) !== bytes.length) return undefined;
  if (crc32(bytes.subarray(headerEnd)) !== h.crc32) return undefined;

  // Typed arrays need 4-byte alignment: copy in the rare case the buffer does not start on it.
  const aligned = bytes.byteOffset % 4 === 0 ? bytes : Buffer.from(new Uint8Array(bytes));
  const at: number[] = [];
  sizes.reduce((offset, size) => (at.push(offset), offset + size), headerEnd);
  const base = aligned.byteOffset;
  const buffer = aligned.buffer;
  const { slots } = h;
  const vectors = rowsIn(new Int8Array(buffer, base + at[0]!, slots * dims), dims);
  const scales = new Float32Array(buffer, base + at[1]!, slots);
  const alive = new Uint8Array(buffer, base + at[2]!, slots);
  const codes = Object.fromEntries(ATTRS.map((a, i) => [a, new Int32Array(buffer, base + at[3]! + i * slots * 4, slots)])) as Record<
    Attr,
    Int32Array
  >;
  const terms = new Uint32Array(buffer, base + at[4]!, h.postings);
  const lengths = new Uint32Array(buffer, base + at[5]!, h.postings);
  const entrySlots = new Int32Array(buffer, base + at[6]!, h.entries);
  const weightTable = h.weightCodes > 0 ? new Float32Array(buffer, base + at[7]!, h.weightCodes) : undefined;
  const entryWeights = weightTable ? new Uint16Array(buffer, base + at[8]!, h.entries) : new Float32Array(buffer, base + at[8]!, h.entries);
  let meta: Meta;
  try {
    meta = JSON.parse(aligned.subarray(at[12]!, at[12]! + h.metaBytes).toString('utf8')) as Meta;
  } catch {
    return undefined;
  }
  if (ATTRS.some((a) => !Array.isArray(meta.dictionaries?.[a]))) return undefined;
  const idParts: SlotIdsParts = {
    idAt: new Uint32Array(buffer, base + at[9]!, format === 3 ? 0 : slots),
    nodeAt: new Uint32Array(buffer, base + at[10]!, format === 3 ? 0 : slots),
    bytes: new Uint8Array(buffer, base + at[11]!, h.idBytes),
  };
  const postings: IndexParts['postings'] = [];
  let from = 0;
  for (let i = 0; i < h.postings; i++) {
    const to = from + lengths[i]!;
    if (to > h.entries) return undefined;
    postings.push({ term: terms[i]!, slots: entrySlots.subarray(from, to), weights: entryWeights.subarray(from, to) });
    from = to;
  }
  if (from !== h.entries) return undefined;
  try {
    const ids = format === 3 ? format3Ids(meta, slots, alive) : idParts;
    if (!ids) return undefined;
    const parts = {
      dims,
      slots,
      vectors,
      scales,
      alive,
      codes,
      postings,
      weightTable,
      ids,
      dictionaries: meta.dictionaries,
      release: () => {},
    };
    const index = EmbeddedIndex.restore(parts, options);
    return { index, watermark: h.watermark, database: h.database };
  } catch {
    return undefined;
  }
}

/** A format-3 snapshot's ids and node ids (JSON) as the index holds them; undefined when they do not fit. */
function format3Ids(meta: Meta, slots: number, alive: Uint8Array): SlotIdsParts | undefined {
  const { ids, nodeIds } = meta;
  if (!Array.isArray(ids) || ids.length !== slots || !Array.isArray(nodeIds) || nodeIds.length !== slots) return undefined;
  return SlotIds.fromStrings(ids, nodeIds, (slot) => alive[slot] === 1).parts();
}

/**
 * The header, padded with spaces to `length` bytes of JSON (at least, and a multiple of 4 with the
 * 12 before it): first with a placeholder CRC, then, as long, with the real one.
 */
function headerBytes(h: Header, length = 0): Buffer {
  let json = JSON.stringify(h);
  while (Buffer.byteLength(json) < length || (12 + Buffer.byteLength(json)) % 4 !== 0) json += ' ';
  const head = Buffer.alloc(12);
  MAGICS.get(FORMAT)!.copy(head);
  head.writeUInt32LE(Buffer.byteLength(json), 8);
  return Buffer.concat([head, Buffer.from(json, 'utf8')]);
}

/** Writes `parts` after a placeholder header, a piece at a time, then the header with its CRC. */
async function writeParts(handle: FileHandle, parts: IndexParts, identity: string, origin: SnapshotOrigin): Promise<void> {
  const meta = Buffer.from(JSON.stringify({ dictionaries: parts.dictionaries } satisfies Meta), 'utf8');
  const entries = parts.postings.reduce((n, p) => n + p.slots.length, 0);
  const weightCodes = parts.weightTable?.length ?? 0;
  const header: Header = {
    format: FORMAT,
    identity,
    dims: parts.dims,
    watermark: origin.watermark,
    ...(origin.database === undefined ? {} : { database: origin.database }),
    slots: parts.slots,
    postings: parts.postings.length,
    entries,
    weightCodes,
    idBytes: parts.ids.bytes.length,
    metaBytes: meta.length,
    endianness: os.endianness(),
    crc32: CRC_PLACEHOLDER,
  };
  const placeholder = headerBytes(header);
  await writeAll(handle, placeholder, 0);
  let position = placeholder.length;
  let crc = 0;
  const put = async (bytes: Uint8Array) => {
    for (let done = 0; done < bytes.length; done += WRITE_BYTES) {
      const piece = bytes.subarray(done, Math.min(bytes.length, done + WRITE_BYTES));
      crc = crc32(piece, crc);
      await writeAll(handle, piece, position);
      position += piece.length;
    }
  };
  const asBytes = (a: ArrayBufferView) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  const padding = (n: number) => new Uint8Array(pad4(n) - n);
  // The rows a piece at a time: an index may keep them in a file (vector-rows.ts).
  const rowsPerPiece = Math.max(1, Math.floor(WRITE_BYTES / parts.dims));
  for (let from = 0; from < parts.slots; from += rowsPerPiece)
    await put(asBytes(await parts.vectors.readAsync(from, Math.min(parts.slots, from + rowsPerPiece))));
  await put(padding(parts.slots * parts.dims));
  await put(asBytes(parts.scales));
  await put(asBytes(parts.alive));
  await put(padding(parts.alive.byteLength));
  for (const a of ATTRS) await put(asBytes(parts.codes[a]));
  await put(asBytes(Uint32Array.from(parts.postings, (p) => p.term)));
  await put(asBytes(Uint32Array.from(parts.postings, (p) => p.slots.length)));
  // Postings are many and mostly short: gathered into pieces of about WRITE_BYTES each.
  const gather = async (field: 'slots' | 'weights') => {
    let piece = new Uint8Array(WRITE_BYTES);
    let filled = 0;
    for (const p of parts.postings) {
      const bytes = asBytes(p[field]);
      if (filled + bytes.length > piece.length) {
        await put(piece.subarray(0, filled));
        filled = 0;
        if (bytes.length > piece.length) piece = new Uint8Array(bytes.length);
      }
      piece.set(bytes, filled);
      filled += bytes.length;
    }
    await put(piece.subarray(0, filled));
  };
  await gather('slots');
  // An empty table is no table: with no entries, no weights follow either way.
  if (weightCodes > 0) await put(asBytes(parts.weightTable!));
  await gather('weights');
  if (weightCodes > 0) await put(padding(entries * 2));
  await put(asBytes(parts.ids.idAt));
  await put(asBytes(parts.ids.nodeAt));
  await put(parts.ids.bytes);
  await put(padding(parts.ids.bytes.length));
  await put(meta);
  const final = headerBytes({ ...header, crc32: crc }, placeholder.length - 12);
  if (final.length !== placeholder.length) throw new Error('snapshot header changed length');
  await writeAll(handle, final, 0);
}

async function writeAll(handle: FileHandle, buf: Uint8Array, position: number): Promise<void> {
  for (let done = 0; done < buf.length;) done += (await handle.write(buf, done, buf.length - done, position + done)).bytesWritten;
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

/**
 * Replaces `file` with a snapshot of `index` as it is when called: whole, synced, then renamed
 * over (see the top of this file). The index may change while the file is written.
 */
export async function writeSnapshot(
  file: string,
  index: EmbeddedIndex,
  identity: string,
  origin: SnapshotOrigin,
  crash: CrashHook,
): Promise<void> {
  // The index as it is now: what it does while the file is written is not in this snapshot.
  const parts = index.parts();
  try {
    await writeWhole(file, parts, identity, origin, crash);
  } finally {
    parts.release();
  }
}

async function writeWhole(file: string, parts: IndexParts, identity: string, origin: SnapshotOrigin, crash: CrashHook): Promise<void> {
  const dir = path.dirname(file);
  await mkdir(dir, { recursive: true });
  await removeAbandonedTemps(file);
  const temp = `${file}${TEMP_MARK}${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    const handle = await open(temp, 'wx');
    try {
      await writeParts(handle, parts, identity, origin);
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
