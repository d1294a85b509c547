// Where a running server announces itself ({url, pid}), so other `doco` commands find it.
import path from 'node:path';

export const serverFile = (home: string) => path.join(home, 'server.json');
