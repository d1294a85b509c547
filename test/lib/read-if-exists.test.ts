// A file read whole, a piece at a time (fs.readFile stops at 2 GiB, past which an embedded
// index's snapshot never loaded), or undefined when there is none.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileIfExists } from '../../src/lib/read-if-exists.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'doco-read-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

describe('readFileIfExists', () => {
  it('reads every byte, in pieces that do not divide the file', async () => {
    const file = path.join(dir, 'data');
    const bytes = randomBytes(1_000_003);
    await writeFile(file, bytes);
    for (const piece of [4096, 65_536, 1 << 26]) expect((await readFileIfExists(file, piece))!.equals(bytes)).toBe(true);
    expect((await readFileIfExists(file))!.equals(await readFile(file))).toBe(true);
  });

  it('is undefined for no file, an empty buffer for an empty one, and throws for a folder', async () => {
    expect(await readFileIfExists(path.join(dir, 'none'))).toBeUndefined();
    await writeFile(path.join(dir, 'empty'), '');
    expect((await readFileIfExists(path.join(dir, 'empty')))!.length).toBe(0);
    await expect(readFileIfExists(dir)).rejects.toThrow();
  });
});
