#!/usr/bin/env node
// The `doco` command: runs the compiled CLI (built by `npm ci` through the prepare script).
// CommonJS (bin/package.json): `doco hook` runs before every agent prompt and edit, so it is
// required from its CommonJS build (dist/hook/) with no ES module loaded at all, skips the
// dispatcher's imports, and exits as soon as its answer is written (an unread stdin or a closing
// socket must not hold it). Everything else is an ES module, loaded with import().
// `doco mcp-bridge` skips them too: it starts with every Gemini session.
// `doco serve` and `doco worker` start the whole server (src/main.ts, the composition root);
// every other command is the command line's (src/cli/main.ts), loaded on demand.
// `--help` or `-h` (before any `--`) goes to the command line's help, for these too.
// A reader that stops early (`doco … | head -1`) closes the pipe: the rest of the output is not
// wanted, which is no error to report (Node would print a stack trace for the unhandled EPIPE).
process.stdout.on('error', (err) => {
  if (err && err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});
const [cmd, ...rest] = process.argv.slice(2);
const options = rest.includes('--') ? rest.slice(0, rest.indexOf('--')) : rest;
const help = options.includes('--help') || options.includes('-h');
if (cmd === 'hook' && !help) {
  // A hook never blocks the agent: a failure it did not expect (a checkout built without the
  // hook's build, which `npm run build` makes) is one line on stderr, the answer nothing, exit 0.
  const failOpen = (err) => {
    process.stderr.write(
      `doco hook: added nothing: ${err && err.code === 'MODULE_NOT_FOUND' ? 'this install has no hook build (npm run build makes it)' : String((err && err.message) || err).split('\n')[0]}\n`,
    );
    process.exit(0);
  };
  let hook;
  try {
    // The CommonJS build of the hook (tsconfig.hook.json): no ESM loader to start.
    hook = require('../dist/hook/cli/commands/hook.js');
  } catch (err) {
    failOpen(err);
  }
  hook.hookCommand(rest).then((code) => process.stdout.write('', () => process.exit(code)), failOpen);
} else if (cmd === 'mcp-bridge' && !help) {
  // Gemini's MCP entry: the dispatcher's imports (the environment's schema among them) are skipped
  // too. An error it did not expect is printed as every command's is (src/cli/output.ts).
  import('../dist/src/cli/commands/mcp-bridge.js')
    .then((m) => m.mcpBridgeCommand(rest))
    .then(
      (code) => (process.exitCode = code),
      async (err) => (process.exitCode = (await import('../dist/src/cli/output.js')).reportError(err)),
    );
} else if ((cmd === 'serve' || cmd === 'worker') && !help) import('../dist/src/main.js').then((m) => m.main(process.argv.slice(2)));
else import('../dist/src/cli/main.js').then((m) => m.main(process.argv.slice(2)));
