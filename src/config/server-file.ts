// Where a running server announces itself ({url, pid}), so other `doco` commands find it.
import { readFile } from 'node:fs/promises';
import path from 'node:path';

export const serverFile = (home: string) => path.join(home, 'server.json');

/** The server this home records, when its process still runs. */
export async function readLiveServer(home: string): Promise<{ url: string; pid: number } | undefined> {
  try {
    const { url, pid } = JSON.parse(await readFile(serverFile(home), 'utf8')) as { url: string; pid: number };
    process.kill(pid, 0);
    return { url, pid };
  } catch {
    return undefined;
  }
}
