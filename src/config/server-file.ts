// Where a running server announces itself ({url, pid}), so other `doco` commands find it.
import { readFileSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

export const serverFile = (home: string) => path.join(home, 'server.json');

/**
 * The record's server when its process still runs. A pid of 0 or below names no process
 * (`kill(0, 0)` signals the caller's own group, so it always "runs"): such a record is none. A
 * record another user wrote is none either: it would choose where this user's tokens and prompts go.
 */
function live(file: string, text: string): { url: string; pid: number } | undefined {
  const uid = process.getuid?.();
  if (uid !== undefined && statSync(file).uid !== uid) return undefined;
  const { url, pid } = JSON.parse(text) as { url: unknown; pid: unknown };
  if (typeof url !== 'string' || typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 0) return undefined;
  process.kill(pid, 0);
  return { url, pid };
}

/** The server this home records, when its process still runs. */
export async function readLiveServer(home: string): Promise<{ url: string; pid: number } | undefined> {
  try {
    return live(serverFile(home), await readFile(serverFile(home), 'utf8'));
  } catch {
    return undefined;
  }
}

/** readLiveServer, read at once (for `doco hook`, which imports nothing it need not). */
export function liveServerIn(home: string): { url: string; pid: number } | undefined {
  try {
    return live(serverFile(home), readFileSync(serverFile(home), 'utf8'));
  } catch {
    return undefined;
  }
}
