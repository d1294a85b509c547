#!/usr/bin/env node
// The `doco` command: runs the compiled CLI (built by `npm ci` through the prepare script).
// `doco hook` runs before every agent prompt and edit: it skips the dispatcher's imports.
const [cmd, ...rest] = process.argv.slice(2);
if (cmd === 'hook') import('../dist/src/cli/commands/hook.js').then(async (m) => (process.exitCode = await m.hookCommand(rest)));
else import('../dist/src/cli/main.js').then((m) => m.main(process.argv.slice(2)));
