// Reading and writing the small files `doco hook` finds in, and keeps in, a checkout's git
// directory. The checkout is whatever folder an agent works in, perhaps one unpacked from
// someone else's archive with its `.git`: a file there may be a FIFO (a read would wait for
// ever: the hook's timeout cannot interrupt a synchronous read), a link to /dev/zero, gigabytes,
// or a link to a file outside (a write through it would replace that file). So a read takes only
// a regular file of bounded size, and a write replaces the name itself, never what it links to.
// Node built-ins only: this runs before every prompt and edit.
import { closeSync, constants, fstatSync, openSync, readSync, renameSync, rmSync, writeFileSync } from 'node:fs';

/**
 * The file's bytes when it is a regular file of at most `maxBytes`; undefined when there is
 * nothing at the path; null when there is something else (a folder, a FIFO, a device, a larger
 * file, one that cannot be read). Opened without blocking, so a FIFO is seen, not waited on.
 */
export function readRegularFile(file: string, maxBytes: number): Buffer | undefined | null {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? undefined : null;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > maxBytes) return null;
    const buf = Buffer.allocUnsafe(st.size);
    let got = 0;
    while (got < st.size) {
      const n = readSync(fd, buf, got, st.size - got, got);
      if (n === 0) break;
      got += n;
    }
    return buf.subarray(0, got);
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** readRegularFile as UTF-8 text. */
export function readRegularText(file: string, maxBytes: number): string | undefined | null {
  const buf = readRegularFile(file, maxBytes);
  return buf ? buf.toString('utf8') : buf;
}

/**
 * Writes `text` to `file` as a new file renamed over it: a link at `file` is replaced, not
 * followed, and a reader never sees half a file. Throws as writeFileSync would.
 */
export function replaceFile(file: string, text: string, mode = 0o600): void {
  const temp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(temp, text, { mode, flag: 'wx' });
    renameSync(temp, file);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
}

/**
 * A path git could track, from the top (relative; no empty, `.` or `..` part; at most 4,096
 * characters): what a file the hook remembers in a git directory must hold to be believed, as
 * that directory may be anyone's.
 */
export const trackablePath = (p: unknown): p is string =>
  typeof p === 'string' &&
  p.length > 0 &&
  p.length <= 4096 &&
  !p.includes('\0') &&
  p.split('/').every((part) => part !== '' && part !== '.' && part !== '..');
