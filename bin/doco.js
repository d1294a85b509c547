#!/usr/bin/env node
// The `doco` command: runs the compiled CLI (built by `npm ci` through the prepare script).
import('../dist/src/cli/main.js').then((m) => m.main(process.argv.slice(2)));
