// How much memory the embedded Postgres caches pages in (its shared_buffers). Postgres ships
// 128 MB, which holds every row a brief reads at 10k records but not at 100k: there a brief read
// ~540 blocks past the cache each time (from the OS's page cache, a system call apiece), and
// loading the seeds' rows and their neighbours took half as long again (docs/eval.md, "Issue 29:
// the embedded Postgres's page cache"). A sixteenth of the machine's memory, between 128 MB and
// 1 GB: a laptop of 8 GB gives 512 MB. Postgres touches a buffer only when it reads a page into
// it, so a small database never costs the whole of it.
import os from 'node:os';

const MB = 1024 * 1024;
const FLOOR_MB = 128;
const CEILING_MB = 1024;

/** The embedded cluster's shared_buffers for a machine of `totalBytes` of memory, as Postgres writes it ("512MB"). */
export function embeddedSharedBuffers(totalBytes = os.totalmem()): string {
  const mb = Math.floor(totalBytes / 16 / MB);
  return `${Math.min(CEILING_MB, Math.max(FLOOR_MB, mb))}MB`;
}
