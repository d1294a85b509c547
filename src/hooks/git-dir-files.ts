// Reading and writing the small files `doco hook` finds in, and keeps in, a checkout's git
// directory. The checkout is whatever folder an agent works in, perhaps one unpacked from
// someone else's archive with its `.git`: a file there may be a FIFO (a read would wait for
// ever: the hook's timeout cannot interrupt a synchronous read), a link to /dev/zero, gigabytes,
// or a link to a file outside (a write through it would replace that file). So a read takes only
// a regular file of bounded size, and a write replaces the name itself, never what it links to.
// Node built-ins only: this runs before every prompt and edit.
import { chmodSync, closeSync, constants, fstatSync, openSync, readSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';

/**
 * The file's bytes when it is a regular file of at most `maxBytes`; undefined when there is
 * nothing at the path; null when there is something else (a folder, a FIFO, a device, a larger
 * file, one that cannot be read). Opened without blocking, so a FIFO is seen, not waited on.
 */
export function readRegularFile(file: string, maxBytes: number): Buffer | undefined | null {
  // Looked at before it is opened: opening some devices does something (a watchdog starts).
  try {
    if (!statSync(file).isFile()) return null;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? undefined : null;
  }
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? undefined : null;
  }
  try {
    if (!fstatSync(fd).isFile()) return null;
    // Read to the end rather than trust the size the file reports (/proc's files report 0), and
    // one byte past the bound to see a file larger than it.
    const buf = Buffer.allocUnsafe(Math.min(maxBytes + 1, 64 * 1024));
    const parts: Buffer[] = [];
    let got = 0;
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, got);
      if (n === 0) break;
      got += n;
      if (got > maxBytes) return null;
      parts.push(Buffer.from(buf.subarray(0, n)));
    }
    return Buffer.concat(parts, got);
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
  // Not node:crypto: loading it would cost every hook; the name need only be hard to guess in advance.
  const temp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  // 'wx': a name that exists (a link someone left there among them) is an error, never followed.
  writeFileSync(temp, text, { mode, flag: 'wx' });
  try {
    chmodSync(temp, mode);
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
