// Where the command line keeps its home: DOCO_HOME, else the per-user default, and never a `.doco`
// folder in the directory it runs in. A repository that committed one (a database's PG_VERSION and
// a server.json naming its own server, with a live pid) chose the server a command minted tokens
// through and sent the question to, until the folder was no longer taken.
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chooseHome, defaultHome, homeProblem } from '../../src/config/home.js';
import { liveServerIn } from '../../src/config/server-file.js';
import { runDoco } from '../helpers/cli.js';

let root: string;
let hostile: string;
let fake: http.Server;
const asked: string[] = [];

beforeAll(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), 'doco-home-'));
  fake = http.createServer((req, res) => {
    asked.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
  // What a cloned repository may hold: an older version's home, pointing at its own server.
  hostile = path.join(root, 'clone');
  mkdirSync(path.join(hostile, '.doco', 'pg'), { recursive: true });
  writeFileSync(path.join(hostile, '.doco', 'pg', 'PG_VERSION'), '16\n');
  const url = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
  writeFileSync(path.join(hostile, '.doco', 'server.json'), JSON.stringify({ url, pid: process.pid }));
});
afterAll(async () => {
  fake.closeAllConnections();
  await new Promise((resolve) => fake.close(resolve));
  rmSync(root, { recursive: true, force: true });
});

describe('chooseHome', () => {
  it('takes DOCO_HOME, resolved from the folder', () => {
    expect(chooseHome({ DOCO_HOME: 'h' }, hostile)).toEqual({ path: path.join(hostile, 'h'), source: 'env' });
  });
  it('passes over a ./.doco holding a database, naming it, and takes the per-user default', () => {
    const env = { HOME: path.join(root, 'user') };
    expect(chooseHome(env, hostile)).toEqual({ path: defaultHome(env), source: 'default', passedOver: path.join(hostile, '.doco') });
    expect(chooseHome(env, root)).toEqual({ path: defaultHome(env), source: 'default' });
  });
});

describe('a command run in a folder holding a .doco', () => {
  it('asks nothing of the server that folder names, and says it was not used', async () => {
    const user = path.join(root, 'user');
    const res = await runDoco(['brief', 'payroll plan'], {
      env: { DOCO_HOME: '', DATABASE_URL: '', DOCO_URL: '', HOME: user, XDG_DATA_HOME: '' },
      cwd: hostile,
    });
    expect(asked).toEqual([]);
    expect(res.stderr).toContain(`doco: not using ${path.join(hostile, '.doco')}: a home is never taken from the folder a command runs in`);
    expect(res.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('a home someone else could have made or may write', () => {
  it('a home other users may write is refused in one line, exit 2, before anything is read from it', async () => {
    const shared = path.join(root, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o777);
    expect(homeProblem(shared)).toBe(`${shared} may be written by other users (mode 777): chmod go-w it`);
    const res = await runDoco(['search', 'refunds'], { env: { DOCO_HOME: shared, DATABASE_URL: '', DOCO_URL: '' } });
    expect(res.code).toBe(2);
    expect(res.stderr).toBe(`doco: invalid configuration: DOCO_HOME: ${shared} may be written by other users (mode 777): chmod go-w it\n`);
    chmodSync(shared, 0o755);
    expect(homeProblem(shared)).toBeUndefined();
    expect(homeProblem(path.join(root, 'not-yet'))).toBeUndefined();
  });

  // Only root can give a folder to another user; elsewhere the mode check above is what runs.
  it.runIf(process.getuid?.() === 0)("another user's home, and a server record another user wrote, are not taken", () => {
    const theirs = path.join(root, 'theirs');
    mkdirSync(theirs, { mode: 0o755 });
    writeFileSync(path.join(theirs, 'server.json'), JSON.stringify({ url: 'http://127.0.0.1:9', pid: process.pid }));
    expect(liveServerIn(theirs)).toEqual({ url: 'http://127.0.0.1:9', pid: process.pid });
    chownSync(path.join(theirs, 'server.json'), 65534, 65534);
    expect(liveServerIn(theirs)).toBeUndefined();
    chownSync(theirs, 65534, 65534);
    expect(homeProblem(theirs)).toBe(`${theirs} belongs to another user (uid 65534, not 0)`);
  });
});
