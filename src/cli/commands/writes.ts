// doco capture | relate | changeset: writes straight on the database, as the CLI principal.
// Input comes from flags or as JSON on stdin.
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { parseInput } from '../../lib/validate.js';
import { capture, changeset, relate } from '../../graph/writes.js';
import { AppError } from '../../errors.js';
import { makeJudge } from '../../providers/from-config.js';
import { cliEnv, cliWriteContext, principalFlag, readStdin, withDatabase } from '../context.js';
import { printJson, UsageError } from '../output.js';

const common = { workspace: { type: 'string' }, principal: { type: 'string' } } as const;

const UNREADABLE: Record<string, string> = {
  ENOENT: 'no such file',
  EISDIR: 'is a folder, not a file',
  EACCES: 'not readable by this user',
};

/** A --file that is not there (or not a readable file) is the caller's mistake: one line, exit 2. */
async function readInputFile(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    const why = UNREADABLE[(err as NodeJS.ErrnoException).code ?? ''];
    if (why) throw new UsageError(`--file ${file}: ${why}`);
    throw err;
  }
}

async function jsonFromStdinOrFile(file: string | undefined): Promise<unknown> {
  const text = file ? await readInputFile(file) : await readStdin();
  if (!text.trim()) throw new UsageError('give the input as flags, or as JSON on stdin (or --file)');
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new AppError('validation_failed', `the input is not valid JSON: ${(err as Error).message}`);
  }
}

function parseJsonFlag(name: string, text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new AppError('validation_failed', `--${name} is not valid JSON: ${(err as Error).message}`);
  }
}

type Writer = typeof capture | typeof relate | typeof changeset;

async function runWrite(values: { workspace?: string; principal?: string }, input: unknown, write: Writer): Promise<number> {
  const principal = principalFlag(values.principal);
  const env = cliEnv();
  const result = await withDatabase(env, async (h) => {
    const ctx = await cliWriteContext(h, values.workspace ?? env.config.workspace, principal);
    return write({ db: h.db, judge: await makeJudge(env.config) }, ctx, input);
  });
  printJson(result);
  return 0;
}

export async function captureCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      ...common,
      collection: { type: 'string' },
      type: { type: 'string' },
      title: { type: 'string' },
      prose: { type: 'string' },
      body: { type: 'string' },
      lifecycle: { type: 'string' },
      'on-duplicate': { type: 'string' },
      file: { type: 'string' },
    },
    strict: true,
  });
  const fromFlags = values.collection !== undefined || values.type !== undefined;
  const input = fromFlags
    ? Object.fromEntries(
        Object.entries({
          collection: values.collection,
          node_type: values.type,
          title: values.title,
          prose: values.prose,
          body: parseJsonFlag('body', values.body),
          lifecycle: values.lifecycle,
        }).filter(([, v]) => v !== undefined),
      )
    : await jsonFromStdinOrFile(values.file);
  return runWrite(values, withOnDuplicate(input, values['on-duplicate']), capture);
}

export async function relateCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      ...common,
      from: { type: 'string' },
      to: { type: 'string' },
      type: { type: 'string' },
      lifecycle: { type: 'string' },
      file: { type: 'string' },
    },
    strict: true,
  });
  const fromFlags = values.from !== undefined || values.to !== undefined;
  const input = fromFlags
    ? Object.fromEntries(
        Object.entries({ from: values.from, to: values.to, edge_type: values.type, lifecycle: values.lifecycle }).filter(
          ([, v]) => v !== undefined,
        ),
      )
    : await jsonFromStdinOrFile(values.file);
  return runWrite(values, input, relate);
}

export async function changesetCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { ...common, 'on-duplicate': { type: 'string' }, file: { type: 'string' } },
    strict: true,
  });
  return runWrite(values, withOnDuplicate(await jsonFromStdinOrFile(values.file), values['on-duplicate']), changeset);
}

/** `--on-duplicate warn|block` joins the input (validated with it); the flag wins over the JSON's. */
function withOnDuplicate(input: unknown, flag: string | undefined): unknown {
  if (flag === undefined) return input;
  return input && typeof input === 'object' && !Array.isArray(input) ? { ...input, on_duplicate: flag } : input;
}
