// A file's bytes, or undefined when there is no such file (any other failure still throws):
// for caches and snapshots, where a missing file just means "build it".
import { readFile } from 'node:fs/promises';

export async function readFileIfExists(file: string): Promise<Buffer | undefined> {
  try {
    return await readFile(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}
