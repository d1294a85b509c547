// `doco --help`, `doco <command> --help` and the "did you mean" of a mistyped command or flag,
// through the built binary: help on stdout with exit 0, before any database or server loads;
// usage errors one line each, exit 2, no stack trace.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closest, commandHelp, HELP, usageLine, usageNames } from '../../src/cli/help.js';
import { commands } from '../../src/cli/main.js';
import { DOCO_BIN, runDoco, type CliResult } from '../helpers/cli.js';

let home: string;
const doco = (...args: string[]) => runDoco(args, { env: { DOCO_HOME: home, DATABASE_URL: '', DOCO_URL: '', DOCO_LOG_LEVEL: 'warn' } });
const EVERY = [...Object.keys(commands), 'serve', 'worker'];

const noStack = (r: CliResult) => {
  for (const line of `${r.stdout}\n${r.stderr}`.split('\n')) expect(line).not.toMatch(/^ {4}at /);
};

beforeAll(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), 'doco-cli-help-'));
});

afterAll(async () => {
  if (home) await rm(home, { recursive: true, force: true });
});

describe('doco <command> --help', () => {
  it('has an entry for every command the dispatcher knows, and no other', () => {
    expect(Object.keys(HELP).sort()).toEqual([...EVERY].sort());
  });

  it('prints each command its usage, options, environment and an example on stdout, exit 0', async () => {
    const results = await Promise.all(EVERY.map(async (name) => [name, await doco(name, '--help')] as const));
    for (const [name, r] of results) {
      expect(r.code, `${name}: ${r.stderr}`).toBe(0);
      expect(r.stderr).toBe('');
      expect(r.stdout).toMatch(new RegExp(`^usage:( |\\n  )doco ${name}\\b`, 'm'));
      expect(r.stdout).toMatch(new RegExp(`^example:\\n  .*doco ${name}\\b`, 'm'));
      expect(r.stdout).toMatch(/^environment:\n {2}[A-Z]/m);
      noStack(r);
    }
  }, 90_000);

  it('answers -h and doco help <command> the same', async () => {
    const [long, short, help] = await Promise.all([doco('brief', '--help'), doco('brief', '-h'), doco('help', 'brief')]);
    expect(short).toEqual(long);
    expect(help).toEqual(long);
    expect(long.stdout).toContain('--touching PATH');
    expect(long.stdout).toContain('DOCO_URL');
  });

  it('finds --help after a subcommand and its arguments, and not after --', async () => {
    const r = await doco('connector', 'add', 'github', '--repo', 'a/b', '--help');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('doco connector add slack --team-id T');
    const hook = await doco('hook', 'prompt', '--agent', 'codex', '-h');
    expect(hook.code).toBe(0);
    expect(hook.stdout).toContain('DOCO_HOOK_TIMEOUT_MS');
    // After `--` it is an argument: the hook runs (nothing on stdin: a note, and still exit 0).
    const after = await doco('hook', 'prompt', '--', '--help');
    expect(after.code).toBe(0);
    expect(after.stdout).not.toContain('usage:');
    expect(after.stderr).toContain('doco hook:');
  });
});

describe('doco --help', () => {
  it('read by a reader that stops at once (`doco --help | head -0`): no stack trace, exit 0', async () => {
    const child = spawn(process.execPath, [DOCO_BIN, '--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy(); // the pipe's reader gone before the first write
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });

  it('groups the commands and names DOCO_HOME and DOCO_URL', async () => {
    const r = await doco('--help');
    expect(r.code).toBe(0);
    for (const group of ['run Doco:', 'ask:', 'write:', 'ingest and index:', 'coding agents:', 'administer:'])
      expect(r.stdout).toContain(`\n${group}\n`);
    for (const name of EVERY) expect(r.stdout).toMatch(new RegExp(`^ {2}${name} +\\S`, 'm'));
    expect(r.stdout).toMatch(/^ {2}DOCO_HOME +.*database/m);
    expect(r.stdout).toMatch(/^ {2}DOCO_URL +.*server/m);
    expect(r.stdout).toContain('doco <command> --help');
    expect((await doco()).stdout).toBe(r.stdout);
    expect((await doco('help')).stdout).toBe(r.stdout);
  });
});

/** The usage lines `doco <command> --help` prints (after `doco `), and the flags each one's block lists. */
function helpUsages(help: string): { usage: string; flags: string[] }[] {
  const lines = help.split('\n');
  const start = lines.findIndex((l) => l.startsWith('usage:'));
  const single = /^usage: doco (.*)$/.exec(lines[start]!);
  const flagOf = (l: string) => /^ {2,6}(--[a-z][a-z-]*)/.exec(l)?.[1];
  // The shared options, after the forms: every form's usage names those it takes.
  const options = lines.slice(lines.indexOf('options:') + 1, lines.indexOf('', lines.indexOf('options:')));
  const shared = lines.includes('options:') ? options.flatMap((l) => flagOf(l) ?? []) : [];
  if (single) return [{ usage: single[1]!, flags: shared }];
  const forms: { usage: string; flags: string[] }[] = [];
  for (const l of lines.slice(start + 1, lines.indexOf('', start))) {
    const form = /^ {2}doco (.*)$/.exec(l);
    if (form) forms.push({ usage: form[1]!, flags: [] });
    else if (flagOf(l)) forms.at(-1)!.flags.push(flagOf(l)!);
  }
  return forms;
}

describe('the usage a mistake prints is the usage --help prints', () => {
  it('names, for every command, each flag its --help lists, and each form the flags listed under it', () => {
    for (const name of Object.keys(HELP)) {
      const help = commandHelp(name);
      const line = usageLine(name);
      const listed = help.split('\n').flatMap((l) => /^ {2,6}(--[a-z][a-z-]*)/.exec(l)?.[1] ?? []);
      for (const flag of listed) expect(usageNames(line, flag), `${name}: ${flag} is not in ${line}`).toBe(true);
      for (const form of helpUsages(help))
        for (const flag of form.flags) expect(usageNames(form.usage, flag), `${name}: ${flag} is not in ${form.usage}`).toBe(true);
    }
  });

  it('is written nowhere but src/cli/help.ts', () => {
    const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../src/cli/commands');
    for (const file of readdirSync(dir)) expect(readFileSync(path.join(dir, file), 'utf8'), file).not.toMatch(/['"`]usage: doco /);
  });

  // Each mistake that answers with a usage line, through the built binary.
  const MISTAKES: readonly (readonly [string, readonly string[]])[] = [
    ['brief', ['brief']],
    ['search', ['search']],
    ['get', ['get']],
    ['token', ['token']],
    ['collection', ['collection']],
    ['collection', ['collection', 'set']],
    ['workspace', ['workspace']],
    ['workspace', ['workspace', 'set']],
    ['ingest-docs', ['ingest-docs', 'a', 'b']],
    ['lint-docs', ['lint-docs', 'a', 'b']],
    ['align', ['align', 'a', 'b']],
    ['hook', ['hook']],
    ['mcp-bridge', ['mcp-bridge']],
    ['connector', ['connector', 'remove']],
    ['connector', ['connector', 'rearm']],
  ];
  it.each(MISTAKES)('doco %s: its line is forms --help prints, naming every flag --help lists for them (%j)', async (name, args) => {
    const [r, help] = await Promise.all([doco(...args), doco(name, '--help')]);
    const lines = r.stderr.split('\n');
    expect(lines.length, r.stderr).toBe(2);
    const printed = /^doco(?: hook)?: usage: doco (.*)$/.exec(lines[0]!)?.[1]?.split(' | doco ');
    expect(printed, r.stderr).toBeDefined();
    const forms = helpUsages(help.stdout);
    for (const usage of printed!) {
      const form = forms.find((f) => f.usage === usage);
      expect(form, `${usage}\nis not one of --help's:\n${forms.map((f) => f.usage).join('\n')}`).toBeDefined();
      for (const flag of form!.flags) expect(usageNames(usage, flag), `${flag} in ${usage}`).toBe(true);
    }
    if (printed!.length === forms.length) {
      const listed = help.stdout.split('\n').flatMap((l) => /^ {2,6}(--[a-z][a-z-]*)/.exec(l)?.[1] ?? []);
      for (const flag of listed) expect(usageNames(lines[0]!, flag), `${flag} in ${lines[0]}`).toBe(true);
    }
  });
});

describe('did you mean', () => {
  it('suggests the closest command for an unknown one, on one line, exit 2', async () => {
    const r = await doco('serach', 'refunds');
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    const lines = r.stderr.split('\n').filter((l) => l.includes('serach'));
    expect(lines).toEqual(['doco: unknown command "serach"; did you mean search?']);
    noStack(r);
  });

  it("suggests the command's closest flag for an unknown one, without node's quoting advice", async () => {
    const r = await doco('brief', 'x', '--touch', 'a');
    expect(r.code).toBe(2);
    const [first] = r.stderr.split('\n');
    expect(first).toBe('doco: brief: unknown option --touch; did you mean --touching?');
    expect(r.stderr).not.toContain('To specify');
    noStack(r);
  });

  it("looks among the subcommand's flags", async () => {
    const r = await doco('connector', 'add', 'github', '--repoo', 'a/b');
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe('doco: connector add: unknown option --repoo; did you mean --repo?');
  });

  it('says a flag needs a value in one line', async () => {
    const r = await doco('capture', '--title');
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe('doco: capture: --title needs a value');
  });

  it('picks by prefix or edit distance, and nothing far off', () => {
    expect(closest('serach', Object.keys(HELP))).toBe('search');
    expect(closest('ingest', Object.keys(HELP))).toBe('ingest-docs');
    expect(closest('--jsno', ['--json', '--limit'])).toBe('--json');
    expect(closest('frobnicate', Object.keys(HELP))).toBeUndefined();
  });
});
