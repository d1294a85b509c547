// A stand-in `codex` for `doco hooks status`: a script named codex that answers `app-server`'s
// JSON-RPC (initialize, then hooks/list) over stdio the way Codex 0.171 does, listing the hooks
// of <cwd>/.codex/hooks.json with the trustStatus given. Put its directory first on PATH.
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export function fakeCodexDir(trustStatus: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'doco-fake-codex-'));
  const script = `#!${process.execPath}
const fs = require('node:fs'), path = require('node:path'), readline = require('node:readline');
if (process.argv[2] !== 'app-server') process.exit(2);
const out = (m) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\\n');
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const m = JSON.parse(line);
  if (m.method === 'initialize') out({ id: m.id, result: { userAgent: 'fake-codex/0.171.0' } });
  if (m.method === 'hooks/list') {
    const data = m.params.cwds.map((cwd) => {
      const file = path.join(cwd, '.codex', 'hooks.json');
      const hooks = [];
      const config = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')).hooks || {} : {};
      for (const [eventName, groups] of Object.entries(config))
        groups.forEach((g, gi) => (g.hooks || []).forEach((h, hi) =>
          hooks.push({ key: file + ':' + eventName + ':' + gi + ':' + hi, eventName, command: h.command, source: 'project', trustStatus: ${JSON.stringify(trustStatus)}, currentHash: 'sha256:x' })));
      return { cwd, hooks, errors: [] };
    });
    out({ id: m.id, result: { data } });
  }
});
`;
  writeFileSync(path.join(dir, 'codex'), script);
  chmodSync(path.join(dir, 'codex'), 0o755);
  return dir;
}
