// doco search "Q" [--type T] [--shape S] [--collection C] [--limit N] [--json]: hybrid search,
// asking the running server when one is up, else in-process on the same database and index.
// Either way the answer is searchRecords' (src/retrieval/search.ts): its scores and its floor.
import { parseArgs } from 'node:util';
import { parseInput } from '../../lib/validate.js';
import { searchRecords, SearchQuerySchema, type SearchResult } from '../../retrieval/search.js';
import { plainText } from '../../lib/plain-text.js';
import { excerpt } from '../../text/readable/excerpt.js';
import { cliEnv } from '../context.js';
import { withLocalRead } from '../local-search.js';
import { printJson, UsageError } from '../output.js';
import { usageLine } from '../help.js';
import { callServer, cliToken, findServer } from '../server-client.js';

/** A record's words for a terminal: one line, no control character (a source's escape sequence rewrites what it shows). */
const oneLine = (text: string) => plainText(text).replace(/\s+/g, ' ');

/** A result's text on the one line the terminal shows it on: code and tables as "[code]" and "[table]". */
const SNIPPET_CHARS = 200;
/** The mark ending a result whose code or table was cut: after "[code]" an ellipsis says as much. */
const CUT_MARK = /\n… (?:code|table) cut$/;

export async function searchCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      type: { type: 'string' },
      shape: { type: 'string' },
      collection: { type: 'string' },
      limit: { type: 'string' },
      'after-changeset': { type: 'string' },
      workspace: { type: 'string' },
      json: { type: 'boolean' },
    },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length !== 1) throw new UsageError(usageLine('search'));
  const raw = Object.fromEntries(
    Object.entries({
      q: positionals[0],
      type: values.type,
      shape: values.shape,
      collection: values.collection,
      limit: values.limit,
      after_changeset: values['after-changeset'],
    }).filter(([, v]) => v !== undefined),
  );
  const query = parseInput(SearchQuerySchema, raw, 'search');
  const env = cliEnv();
  const workspace = values.workspace ?? env.config.workspace;
  const server = await findServer(env);
  const { results } = server
    ? await callServer<SearchResult>(
        server,
        await cliToken(env, workspace),
        'GET',
        `/api/v1/search?${new URLSearchParams(raw as Record<string, string>)}`,
      )
    : await withLocalRead(env, workspace, (deps, ctx) => searchRecords(deps, ctx.workspaceId, query));
  if (values.json) printJson({ results, nothing_matched_well: results.length === 0 });
  else if (!results.length) process.stdout.write('nothing matched well\n');
  else
    for (const r of results)
      process.stdout.write(
        `${r.id}  ${oneLine(r.title)}\n    ${oneLine(excerpt(r.text.replace(CUT_MARK, ' …'), SNIPPET_CHARS, false))}\n    score ${r.score} · because: ${oneLine(r.because)}\n`,
      );
  return 0;
}
