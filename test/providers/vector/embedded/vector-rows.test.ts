// The embedded index's int8 rows, in memory and in an unlinked file: what was appended reads back
// (held-back rows and written ones alike, in one read or across both), asynchronously too; a
// file refuses a range past its end; the file leaves nothing in its folder; a closed file is not read.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileRows, memoryRows, spillingRows, type Int8Rows } from '../../../../src/providers/vector/embedded/vector-rows.js';

const DIMS = 5;
/** Row n: its bytes derived from n, so a row read from the wrong place shows. */
const row = (n: number) => Int8Array.from({ length: DIMS }, (_, i) => ((n * 7 + i * 13) % 255) - 127);
const rowsOf = (from: number, to: number) => {
  const out = new Int8Array((to - from) * DIMS);
  for (let n = from; n < to; n++) out.set(row(n), (n - from) * DIMS);
  return out;
};

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'doco-rows-'));
});
afterAll(async () => rm(tmp, { recursive: true, force: true }));

const kinds: [string, () => Int8Rows][] = [
  ['in memory', () => memoryRows(DIMS, 4)],
  ['in a file', () => fileRows(path.join(tmp, 'rows'), DIMS)],
  ['in memory, then in a file past 10 rows', () => spillingRows(path.join(tmp, 'spill'), DIMS, 10 * DIMS)],
];

describe('rows that outgrow their memory', () => {
  it('stay in memory up to the bound, then move to a file whole; a view read before the move stays true', async () => {
    const rows = spillingRows(path.join(tmp, 'spill-move'), DIMS, 10 * DIMS);
    for (let n = 0; n < 10; n++) rows.append(row(n));
    expect(rows.inFile).toBe(false);
    const before = rows.read(0, 10);
    rows.append(row(10));
    expect(rows.inFile).toBe(true);
    expect(before).toEqual(rowsOf(0, 10));
    for (let n = 11; n < 600; n++) rows.append(row(n));
    expect(rows.read(0, 600)).toEqual(rowsOf(0, 600));
    expect(await rows.readAsync(3, 420)).toEqual(rowsOf(3, 420));
    const one = new Int8Array(DIMS);
    rows.readRow(9, one);
    expect(one).toEqual(row(9));
    // The file is unlinked as it is made: nothing is left in the folder.
    expect(await readdir(path.join(tmp, 'spill-move'))).toEqual([]);
    rows.close();
    expect(() => rows.read(0, 1)).toThrow(/after close/);
  });
});

describe.each(kinds)('rows %s', (_, make) => {
  it('reads back every row appended, in one read or many, written or held back, synchronously or not', async () => {
    const rows = make();
    // 700 rows: past two of a file's batches of held-back rows (256), and a memory array's growths.
    for (let n = 0; n < 700; n++) rows.append(row(n));
    expect(rows.count).toBe(700);
    for (const [from, to] of [
      [0, 1],
      [0, 700],
      [255, 257],
      [500, 700],
      [699, 700],
      [10, 10],
    ] as const) {
      expect(rows.read(from, to)).toEqual(rowsOf(from, to));
      expect(await rows.readAsync(from, to)).toEqual(rowsOf(from, to));
    }
    // Read asynchronously while rows are held back, then appended to: the earlier rows hold still.
    rows.append(row(700));
    expect(await rows.readAsync(0, 701)).toEqual(rowsOf(0, 701));
    for (let n = 701; n < 1000; n++) rows.append(row(n));
    expect(rows.read(0, 1000)).toEqual(rowsOf(0, 1000));
    rows.close();
  });
});

describe('rows in a file', () => {
  it('refuse a range past the rows they hold', () => {
    const rows = fileRows(path.join(tmp, 'range'), DIMS);
    rows.append(row(0));
    expect(() => rows.read(0, 2)).toThrow(/out of range/);
    rows.close();
  });

  it('leave nothing in their folder, and are not read once closed', async () => {
    const dir = path.join(tmp, 'unlinked');
    const rows = fileRows(dir, DIMS);
    for (let n = 0; n < 300; n++) rows.append(row(n));
    expect(await readdir(dir)).toEqual([]);
    expect(rows.read(0, 300)).toEqual(rowsOf(0, 300));
    rows.close();
    expect(() => rows.read(0, 1)).toThrow(/after close/);
    expect(() => rows.append(row(0))).toThrow(/after close/);
  });
});
