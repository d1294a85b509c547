// Labelled queries: what an agent asks before a change, the paths it is touching, and the
// targets a developer would need before making that change — doc section_keys
// (`docs/…md#slug`) or record keys from the corpus's records.json.
import { readFile } from 'node:fs/promises';
import * as v from 'valibot';
import { AGENTS, parseHookInput } from '../src/hooks/agents.js';
import { QUERY_KINDS, type EvalQuery } from './systems.js';

/**
 * An edit ask's hook event, as the agent would send it (src/hooks/agents.ts): the tool and its
 * input (old_string/new_string, content, or an apply_patch `command`), without the file path,
 * which is the query's first `touching` (made absolute under a checkout, as agents send it).
 */
const HookSchema = v.object({
  agent: v.picklist(AGENTS),
  tool_name: v.pipe(v.string(), v.minLength(1)),
  tool_input: v.record(v.string(), v.unknown()),
});

const QuerySchema = v.object({
  id: v.optional(v.pipe(v.string(), v.minLength(1))),
  /** What the query tests: the eval reports each kind on its own. */
  kind: v.optional(v.picklist(QUERY_KINDS, `must be one of ${QUERY_KINDS.join(', ')}`)),
  about: v.pipe(v.string(), v.trim(), v.minLength(1)),
  touching: v.optional(v.array(v.pipe(v.string(), v.minLength(1))), []),
  relevant: v.pipe(v.array(v.pipe(v.string(), v.minLength(1))), v.minLength(1, 'needs at least one relevant target')),
  /** Why these targets: for the reader of the labels, not used by the eval. */
  note: v.optional(v.string()),
  /** An edit ask: the hook event whose code the brief is asked with (kind `edit`). */
  hook: v.optional(HookSchema),
});
const FileSchema = v.union([v.array(QuerySchema), v.object({ queries: v.array(QuerySchema) })]);

export async function readQueries(file: string): Promise<EvalQuery[]> {
  const parsed = v.safeParse(FileSchema, JSON.parse(await readFile(file, 'utf8')));
  if (!parsed.success) throw new Error(`${file}: ${parsed.issues.map((i) => `${v.getDotPath(i) ?? '?'}: ${i.message}`).join('; ')}`);
  const list = Array.isArray(parsed.output) ? parsed.output : parsed.output.queries;
  const seen = new Set<string>();
  return list.map((q, i) => {
    const id = q.id ?? `q${String(i + 1).padStart(2, '0')}`;
    if (seen.has(id)) throw new Error(`${file}: query id ${id} is used twice`);
    seen.add(id);
    const base = { id, kind: q.kind, about: q.about, touching: q.touching, relevant: [...new Set(q.relevant)] };
    return q.hook ? { ...base, codeTerms: hookCodeTerms(file, base, q.hook) } : base;
  });
}

const CHECKOUT = '/checkout';

/**
 * The code terms an edit ask's hook event gives the brief, read by the hook's own parser, which
 * must also phrase the ask's `about` and `touching` as the label says: the label is what the
 * hook would send.
 */
function hookCodeTerms(file: string, q: Omit<EvalQuery, 'codeTerms'>, hook: v.InferOutput<typeof HookSchema>): string[] {
  const toolInput =
    hook.agent === 'codex' && 'command' in hook.tool_input
      ? hook.tool_input
      : { file_path: `${CHECKOUT}/${q.touching[0]}`, ...hook.tool_input };
  const event = { session_id: 'eval', cwd: CHECKOUT, hook_event_name: 'PreToolUse', tool_name: hook.tool_name, tool_input: toolInput };
  const parsed = parseHookInput(hook.agent, 'edit', event);
  if (parsed.editSummary !== q.about)
    throw new Error(`${file}: ${q.id}: the hook phrases this ask as ${JSON.stringify(parsed.editSummary)}`);
  if (JSON.stringify(parsed.paths) !== JSON.stringify(q.touching))
    throw new Error(`${file}: ${q.id}: the hook says it touches ${JSON.stringify(parsed.paths)}`);
  return parsed.codeTerms ?? [];
}

/** A labelling mistake: a target that names nothing the corpus holds, or a superseded record. */
export class LabelError extends Error {
  constructor(problems: string[]) {
    super(`unresolved targets:\n  ${problems.join('\n  ')}`);
    this.name = 'LabelError';
  }
}

/** Every target must name an emitted section or a live record: checked before anything is booted. */
export function checkTargets(queries: EvalQuery[], known: Set<string>, superseded: Set<string>): void {
  const problems: string[] = [];
  for (const q of queries) {
    for (const t of q.relevant) {
      if (superseded.has(t)) problems.push(`${q.id}: ${t} is superseded (label its replacement)`);
      else if (!known.has(t))
        problems.push(
          `${q.id}: ${t} names no ingested section or record${t.includes('#') ? ' (under the 200-character floor, or a wrong slug?)' : ''}`,
        );
    }
  }
  if (problems.length) throw new LabelError(problems);
}

/** Turns each query's targets into record ids (after checkTargets, every one resolves). */
export function resolveTargets(
  queries: EvalQuery[],
  ids: Map<string, string>,
  retired: Set<string>,
): { query: EvalQuery; relevantIds: string[] }[] {
  checkTargets(queries, new Set(ids.keys()), retired);
  return queries.map((query) => ({ query, relevantIds: query.relevant.map((t) => ids.get(t)!) }));
}
