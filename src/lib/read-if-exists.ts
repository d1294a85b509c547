// A file's bytes, or undefined when there is no such file (any other failure still throws):
// for caches and snapshots, where a missing file just means "build it".
import { open } from 'node:fs/promises';

/** What one read hands over: fs.readFile refuses a file past 2 GiB, and a large index's snapshot passes it. */
const PIECE_BYTES = 64 << 20;

/**
 * The whole file, read a piece at a time into one buffer: fs.readFile stops at 2 GiB
 * (ERR_FS_FILE_TOO_LARGE), and an embedded index of ~2.5 M chunks writes a snapshot that large,
 * which then never loaded and was rebuilt from Postgres at every start (a hostile review).
 */
export async function readFileIfExists(file: string, pieceBytes = PIECE_BYTES): Promise<Buffer | undefined> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    const { size } = await handle.stat();
    const bytes = Buffer.allocUnsafe(size);
    for (let at = 0; at < size;) {
      const { bytesRead } = await handle.read(bytes, at, Math.min(pieceBytes, size - at), at);
      if (bytesRead === 0) return bytes.subarray(0, at); // the file shrank while read: its bytes so far
      at += bytesRead;
    }
    return bytes;
  } finally {
    await handle.close();
  }
}
