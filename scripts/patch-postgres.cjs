#!/usr/bin/env node
// Nine changes to postgres.js (the `postgres` package, our driver), applied by `npm install`'s
// postinstall step, here and wherever the packed doco is installed (`npm install -g`).
// Remove this script, and the postinstall line in package.json, once a release has them.
//
// Fixes 1–7 fire when Postgres goes away under load (the scale suite stops the primary with
// `pg_ctl -m fast`); the code is the same in 3.4.9 and 3.4.10:
//  1. connection.js: nextWrite() runs from a setImmediate and calls socket.write() after closed()
//     has set `socket = null`: an uncatchable TypeError ("Cannot read properties of null
//     (reading 'write')") that ends the process (porsager/postgres issues 1154 and 1208).
//     Fix: nextWrite() with no socket drops what was buffered for it and writes nothing.
//  2. connection.js: closed() and terminate() cancel the pending write's setImmediate but leave
//     its handle in `nextWriteTimer`, and the buffered bytes in `chunk`. After a reconnect,
//     write() sees a timer "pending" and never schedules one, so the new connection's startup
//     message and small queries sit unsent until a timeout; and what was buffered for the old
//     socket would go out ahead of them. Fix: both also reset `nextWriteTimer` and `chunk`.
//  3. connection.js: a query given to a connection that closed (and is not reconnecting) is
//     written into nothing and waits forever (before fix 1, it was the TypeError). Fix: it fails
//     at once with CONNECTION_CLOSED, as a query in flight at the close does.
//  4. index.js, sql.reserve(): when a reserved connection closes, the pool takes it back
//     (onclose), but the reserved handle keeps it: its next query waits forever (fix 3 makes it
//     fail, unless the pool has meanwhile reconnected it for someone else, who would then get
//     it), and its release() puts the closed connection among the open ones, where the pool's
//     next query waits on it forever. Kysely runs every query and transaction on a reserved
//     connection, so a transaction cut by the primary's stop hung in its rollback. Fix: a handle
//     whose connection is no longer its own fails its queries with CONNECTION_CLOSED, and its
//     release() leaves the pool alone.
//  5. connection.js: ReadyForQuery starts fetchArrayTypes() (an async function, the array types
//     every new connection asks for first) and drops its promise: when the connection closes
//     during that query, the rejection is unhandled and ends the process (issues 1192, 1205,
//     1223). Fix: the rejection is caught; the close itself fails or retries what waited on
//     the connection, as for any other query.
//  6. index.js: a reservation waiting for a connection (sql.reserve(), so any Kysely query) is
//     taken out of the queue when a closed connection reconnects for it (onclose), but only the
//     queue's reservations are ever handed a connection (onopen): once reconnected, it waits
//     forever (issue 1195). Fix: it stays queued while the connection reconnects for it; and a
//     reservation that failed leaves the queue, so no connection is handed to it.
//  7. index.js, sql.begin(): when the connection closes mid-transaction, begin() rejects at once
//     (its onclose), but the callback runs on, and its scope sends every later statement to the
//     same connection object, which the pool meanwhile reconnects and lends to others: the
//     statement runs on its own, outside any transaction (a failed transaction's write commits);
//     the scope's closing ROLLBACK ends whichever transaction holds the connection then, whose
//     COMMIT then finds none and succeeds (an acknowledged transaction, aborted); and a statement
//     sent while the new connection asks for its array types is answered after them, so the
//     pool's query waiting on that connection gets the dead transaction's answer (a delivery's job
//     read its delivery as an empty result, found "no row", and was completed unprocessed:
//     docs/jobs.md). A statement the scope had queued behind a busy connection was never sent nor
//     failed: begin() or its caller waited forever. Fix: the scope sends only while the
//     connection holds its transaction (the connection's `reserved` is still the one this begin()
//     set; a close or the transaction's end clears it), else the statement fails at once with
//     CONNECTION_CLOSED; and the close fails the statements queued for it.
// Fix 4 is issue 1199 (and the pull request 1168 thread); fixes 3 and 7 are not reported upstream.
//
// Change 8 is for speed, not for an outage:
//  8. query.js: each Query assigned its resolve and reject to itself as arrow functions in its
//     constructor, and V8 (Node 20's) allocates such a closure straight into the old generation.
//     Its context holds the promise's resolving functions, so every query left an old object
//     reaching the query, its result and whatever awaited it (a brief's whole state). An old
//     object is a root of every young-generation collection until the next full one, so all of
//     that survived the scavenges and was copied into the old generation: 0.39 MB a brief before,
//     0.24 after (the rest is src/lib/v8-tuning.ts's; docs/eval.md, "Session 28"), and a loop of
//     postgres.js queries alone promoted 53 MB of 125 before, 0.2 after. Fix: resolve and reject
//     are methods, the resolving functions kept in `settle`; an instance may still assign its own
//     (a cursor does).
//  9. index.js and queue.js: a query (and a reservation) took the connection idle the longest
//     (`open.shift()`), so a single client's statements went round every connection the pool
//     had opened. Postgres keeps a prepared statement's plan per connection, and plans it anew
//     for its first five runs on each, and postgres.js describes a statement once per connection
//     before its first run: each connection a statement visits pays those again. A fresh
//     server's briefs after a load ran each of their statements on about five connections
//     (planned 24 times in 310 runs) and kept planning them for their first ~40 briefs.
//     Fix: the connection idle the shortest time is taken (a stack, as PgBouncer's default
//     server_round_robin = 0 does), so light traffic stays on the few connections already warm
//     and the rest are opened only when that many are busy at once; under full load every
//     connection is busy either way (docs/eval.md, "Session 30").
//
// It edits src/, cjs/src/ and cf/src/ (query.js, queue.js, connection.js and index.js) of the installed package
// (found from the project root, as the code's own imports find it), refuses with one line and
// exit 1 when the installed version is not the one below or a file's text is not what an edit
// expects, adds only the fixes a file lacks (a driver patched by an earlier version of this
// script), and does nothing when the files are already patched.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { createRequire } = require('node:module');

const FOR_VERSION = '3.4.10';
const MARK = 'doco: scripts/patch-postgres.cjs';
const BUILDS = ['src', 'cjs/src', 'cf/src'];

/** Each file's edits: the text an edit expects, how many times, and what replaces each occurrence. */
const EDITS = {
  'query.js': [
    {
      what: 'change 8, no closures of the constructor on the query',
      from: '    this.resolve = x => (this.active = false, resolve(x))\n    this.reject = x => (this.active = false, reject(x))\n',
      count: 1,
      to: `    this.settle = [resolve, reject] // ${MARK} (8): resolve() and reject() are methods\n`,
    },
    {
      what: 'change 8, resolve() and reject()',
      from: '  get origin() {\n',
      count: 1,
      to: [
        `  resolve(x) { // ${MARK} (8)`,
        '    this.active = false',
        '    this.settle[0](x)',
        '  }',
        '',
        '  reject(x) {',
        '    this.active = false',
        '    this.settle[1](x)',
        '  }',
        '',
        '  get origin() {',
        '',
      ].join('\n'),
    },
  ],
  'queue.js': [
    {
      what: 'change 9, the queue gives up its newest',
      from: '    shift: () => {\n',
      count: 1,
      to: [
        `    pop: () => { // ${MARK} (9): the newest, for the pool's idle connections`,
        '      if (xs.length === index) return undefined',
        '      const out = xs.pop()',
        '      if (index === xs.length) {',
        '        index = 0',
        '        xs = []',
        '      }',
        '      return out',
        '    },',
        '    shift: () => {',
        '',
      ].join('\n'),
    },
  ],
  'connection.js': [
    {
      what: 'fix 1, the nextWrite guard',
      from: '  function nextWrite(fn) {\n    const x = socket.write(chunk, fn)\n',
      count: 1,
      to: [
        '  function nextWrite(fn) {',
        `    if (socket === null) { // ${MARK} (1): the socket closed before this write ran`,
        '      nextWriteTimer !== null && clearImmediate(nextWriteTimer)',
        '      chunk = nextWriteTimer = null',
        '      return false',
        '    }',
        '    const x = socket.write(chunk, fn)',
        '',
      ].join('\n'),
    },
    {
      what: 'fix 2, the write timer reset in closed() and terminate()',
      from: '\n    clearImmediate(nextWriteTimer)\n',
      count: 2,
      to: `\n    clearImmediate(nextWriteTimer)\n    chunk = nextWriteTimer = null // ${MARK} (2): nothing pending for a closed socket\n`,
    },
    {
      what: 'fix 3, a query on a closed connection',
      from: "    if (terminated)\n      return queryError(q, Errors.connection('CONNECTION_DESTROYED', options))\n",
      count: 1,
      to: [
        '    if (terminated)',
        "      return queryError(q, Errors.connection('CONNECTION_DESTROYED', options))",
        `    if (socket === null && initial === null) // ${MARK} (3): closed, not reconnecting`,
        "      return (queryError(q, Errors.connection('CONNECTION_CLOSED', options)), true)",
        '',
      ].join('\n'),
    },
    {
      what: 'fix 5, the array types fetch',
      from: '        return fetchArrayTypes()\n',
      count: 1,
      to: `        return fetchArrayTypes().catch(() => {}) // ${MARK} (5): the close deals with it\n`,
    },
  ],
  'index.js': [
    {
      what: 'change 9, reserve() takes the connection idle the shortest time',
      from: '      ? open.shift()\n',
      count: 1,
      to: `      ? open.pop() // ${MARK} (9): the connection idle the shortest time\n`,
    },
    {
      what: 'change 9, a query takes the connection idle the shortest time',
      from: '      return go(open.shift(), query)\n',
      count: 1,
      to: `      return go(open.pop(), query) // ${MARK} (9): the connection idle the shortest time\n`,
    },
    {
      what: 'fix 6, a failed reservation leaves the queue',
      from: '        const query = { reserve: resolve, reject }\n',
      count: 1,
      to: `        const query = { reserve: resolve, reject: (e) => (queries.remove(query), reject(e)) } // ${MARK} (6)\n`,
    },
    {
      what: 'fix 6, a reservation stays queued while a connection reconnects for it',
      from: '    queries.length && connect(c, queries.shift())\n',
      count: 1,
      to: [
        `    if (queries.length) { // ${MARK} (6): only onopen hands a reservation its connection`,
        '      const query = queries.shift()',
        '      query.reserve && queries.push(query)',
        '      connect(c, query)',
        '    }',
        '',
      ].join('\n'),
    },
    {
      what: 'fix 7, the transaction a begin() holds',
      from: '    let savepoints = 0\n      , connection\n',
      count: 1,
      to: `    let savepoints = 0\n      , connection\n      , held = null // ${MARK} (7): the connection's reserved while it holds this transaction\n`,
    },
    {
      what: 'fix 7, a close fails what waited for the connection',
      from: '        new Promise((_, reject) => connection.onclose = reject)\n',
      count: 1,
      to: [
        `        new Promise((_, reject) => connection.onclose = e => { // ${MARK} (7): what waited for it fails with it`,
        '          while (queries.length) queries.shift().reject(e)',
        '          reject(e)',
        '        })',
        '',
      ].join('\n'),
    },
    {
      what: "fix 7, a begin()'s statements go only to its own transaction",
      from: '        q.catch(e => uncaughtError || (uncaughtError = e))\n        c.queue === full\n',
      count: 1,
      to: [
        '        q.catch(e => uncaughtError || (uncaughtError = e))',
        `        if (c.reserved !== held) // ${MARK} (7): closed, or the transaction ended: send nothing more on it`,
        "          return q.reject(Errors.connection('CONNECTION_CLOSED', options))",
        '        c.queue === full',
        '',
      ].join('\n'),
    },
    {
      what: 'fix 7, the transaction held',
      from: '      move(c, reserved)\n      c.reserved = () => queries.length\n',
      count: 1,
      to: `      move(c, reserved)\n      held = c.reserved = () => queries.length // ${MARK} (7)\n`,
    },
    {
      what: "fix 4, the reserved handle's own connection",
      from: '    c.reserved.release = true\n',
      count: 1,
      to: `    c.reserved.release = true\n    const mine = c.reserved // ${MARK} (4): onclose or release() replaces it\n`,
    },
    {
      what: 'fix 4, release()',
      from: '    sql.release = () => {\n      c.reserved = null\n',
      count: 1,
      to: `    sql.release = () => {\n      if (c.reserved !== mine) return // ${MARK} (4): closed while reserved, the pool has it back\n      c.reserved = null\n`,
    },
    {
      what: "fix 4, the reserved handle's queries",
      from: '    function handler(q) {\n      c.queue === full\n',
      count: 1,
      to: [
        '    function handler(q) {',
        `      if (c.reserved !== mine) // ${MARK} (4): the connection closed, or was released`,
        "        return q.reject(Errors.connection('CONNECTION_CLOSED', options))",
        '      c.queue === full',
        '',
      ].join('\n'),
    },
  ],
};

function fail(message) {
  console.error(`patch-postgres: ${message}`);
  process.exit(1);
}

const occurrences = (text, s) => text.split(s).length - 1;

/** The installed package's folder: its `exports` hide package.json, so walk up from its entry point. */
function packageDir() {
  const root = path.resolve(__dirname, '..');
  let entry;
  try {
    entry = createRequire(path.join(root, 'package.json')).resolve('postgres');
  } catch {
    fail(`the postgres package is not installed under ${root}`);
  }
  for (let dir = path.dirname(entry); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (fs.existsSync(manifest) && JSON.parse(fs.readFileSync(manifest, 'utf8')).name === 'postgres') return dir;
  }
  fail(`no package.json of postgres above ${entry}`);
}

const dir = packageDir();
const version = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).version;
if (version !== FOR_VERSION)
  fail(
    `postgres ${version} is installed, this patch is for ${FOR_VERSION}: check whether ${version} fixes porsager/postgres#1154 and #1208, then update or remove scripts/patch-postgres.cjs`,
  );

// Every file is checked before any is written, so a refusal leaves the package as it was.
const writes = [];
let already = 0;
for (const build of BUILDS)
  for (const [name, edits] of Object.entries(EDITS)) {
    const file = `${build}/${name}`;
    const full = path.join(dir, file);
    if (!fs.existsSync(full)) fail(`postgres ${version} has no ${file}`);
    const text = fs.readFileSync(full, 'utf8');
    // Edit by edit, so a driver an earlier version of this script patched gets the fixes added since.
    let patched = text;
    for (const e of edits) {
      const done = occurrences(patched, e.to);
      if (done === e.count) continue;
      const n = occurrences(patched, e.from);
      if (done !== 0) fail(`${full} is partly patched (${e.what}): reinstall postgres (npm ci)`);
      if (n !== e.count) fail(`${full}: expected the text of ${e.what} ${e.count} time(s), found ${n}`);
      patched = patched.split(e.from).join(e.to);
    }
    if (patched === text) already += 1;
    else writes.push([file, full, patched]);
  }
for (const [, full, patched] of writes) {
  fs.writeFileSync(`${full}.doco-patch`, patched);
  fs.renameSync(`${full}.doco-patch`, full);
}
console.log(
  writes.length
    ? `patch-postgres: postgres ${version} patched (${writes.map(([file]) => file).join(', ')})${already ? `; ${already} already were` : ''}`
    : `patch-postgres: postgres ${version} already patched`,
);
