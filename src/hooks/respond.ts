// One hook call, end to end: session start → standing orders; a prompt or an edit → a brief,
// less what the session was already sent, with possibly stale records marked (those naming a
// file the checkout deleted, as `doco hook` found there and sent: the server runs no program
// and reads no folder the event names).
import { refuseSecretsInFields } from '../graph/secrets-guard.js';
import { composeVersionedBrief, type BriefDeps, type VersionedBrief } from '../brief/compose.js';
import { renderBrief } from '../brief/render.js';
import { BriefRequestSchema, TIER_ORDER, type Brief, type Group, type Item } from '../brief/types.js';
import { parseInput } from '../lib/validate.js';
import { hookOutput, parseHookInput, type Agent, type HookEvent, type HookInput, type HookOutput } from './agents.js';
import { forgetSent, itemVersions, markSent, sentVersions, splitFresh, touchSession, type SessionKey } from './memory.js';
import { loadStandingOrders, renderStandingOrders } from './standing-orders.js';
import { staleIds } from './stale.js';
import { cutText } from '../lib/well-formed.js';

/** Tokens a hook brief may use: Claude moves context over 10,000 characters to a file. */
export const HOOK_BUDGET = 1500;
/** A hard cap on additionalContext, well under the 10,000 characters. */
export const MAX_CONTEXT_CHARS = 8000;
const HOOK_DEADLINE_MS = 6000;
const ABOUT_CHARS = 2000;
const GROUPS: Group[] = [...TIER_ORDER, 'proposed'];

export interface HookResult {
  output: HookOutput;
  briefId?: string;
}

export function fitContext(text: string): string {
  if (text.length <= MAX_CONTEXT_CHARS) return text;
  const cut = cutText(text, MAX_CONTEXT_CHARS - 40);
  return `${cut.slice(0, Math.max(cut.lastIndexOf('\n'), 0) || cut.length)}\n…(cut to fit the hook's size)`;
}

export async function respondToHook(
  deps: BriefDeps,
  ctx: { workspaceId: string; principalId: string },
  agent: Agent,
  event: HookEvent,
  raw: unknown,
): Promise<HookResult> {
  const input = parseHookInput(agent, event, raw);
  // What the session's row keeps is scanned like any write: a credential pasted into a path or a
  // session id is refused (the hook then adds nothing), never stored.
  refuseSecretsInFields({ session_id: input.sessionId, cwd: input.cwd, doco_checkout: input.checkout }, 'the hook event');
  const key: SessionKey = { workspaceId: ctx.workspaceId, principalId: ctx.principalId, sessionId: input.sessionId };
  const touch = () => touchSession(deps.sql, key, agent, input);
  if (event === 'session-start') return { output: hookOutput(agent, event, await sessionStart(deps, key, input, await touch())) };

  const about = event === 'prompt' ? input.prompt!.trim() : input.editSummary!;
  if (!about) {
    await touch();
    return { output: {} };
  }
  const req = briefRequest(about, input);
  // The session's row, what it already holds and the brief do not wait on each other: the brief
  // waits for what the session holds only when it spends its budget (compose.ts, BriefReader).
  const held = sentVersions(deps.sql, key);
  // Handled here too: a brief that fails before it reads `held` must not leave its failure unhandled.
  held.catch(() => undefined);
  const [, sent, composed] = await Promise.all([touch(), held, composeVersionedBrief(deps, ctx, req, { held })]);
  const text = await sessionBrief(deps, key, input, composed, sent);
  return { output: hookOutput(agent, event, text), briefId: composed.brief.brief_id };
}

function briefRequest(about: string, input: HookInput) {
  return parseInput(
    BriefRequestSchema,
    {
      about: about.length > ABOUT_CHARS ? `${cutText(about, ABOUT_CHARS - 1)}…` : about,
      touching: input.paths ?? [],
      // The identifiers of the code an edit writes: evidence its one-line ask lacks (docs/brief.md, "Code terms").
      ...(input.codeTerms?.length ? { code_terms: input.codeTerms } : {}),
      budget: HOOK_BUDGET,
      deadline_ms: HOOK_DEADLINE_MS,
    },
    'hook brief',
  );
}

async function sessionStart(deps: BriefDeps, key: SessionKey, input: HookInput, previous: Date | null): Promise<string> {
  // A new, cleared or compacted context holds nothing we sent; a resumed one still holds it all.
  // Reading the orders and which of them stand on deleted files does not wait on the session's
  // memory; marking what is sent waits only on forgetting what was.
  const [, orders] = await Promise.all([
    input.source !== 'resume' ? forgetSent(deps.sql, key) : undefined,
    loadStandingOrders(deps.sql, key.workspaceId, previous),
  ]);
  const all = [...orders.constitution, ...orders.rules, ...orders.changed, ...orders.proposed];
  const stale = await staleIds(
    deps.sql,
    key.workspaceId,
    input.cwd,
    input.deleted,
    all.map((l) => l.id),
  );
  const text = fitContext(renderStandingOrders(orders, stale));
  // Remembered as held: an order whose line is its whole text, and that the cut left in. One whose
  // text goes on past its line, or that the cut took, is sent in full by the first brief it is
  // relevant to (a hostile review: a rule's second paragraph never reached the session).
  await markSent(deps.sql, key, dedupe([...orders.constitution, ...orders.rules].filter((l) => l.whole && text.includes(`  ${l.id}  `))));
  return text;
}

/** The brief less what this session already holds (`sent`), with a one-line count of what was left out. */
async function sessionBrief(
  deps: BriefDeps,
  key: SessionKey,
  input: HookInput,
  { brief, versions, alreadyHeld }: VersionedBrief,
  sent: Map<string, number>,
): Promise<string> {
  // The tiers and the proposals' group are filtered alike (an approved proposal has a new version: sent again, as an order).
  const groups: Record<Group, Item[]> = { ...brief.tiers, proposed: brief.proposed };
  const current = itemVersions(
    Object.values(groups)
      .flat()
      .map((i) => ({ id: i.id, text: `${i.title}\n${i.text}` })),
    versions,
  );
  // The brief left out the standing orders the session held unchanged; the items the ask chose
  // that it holds are split off here.
  let unchanged = alreadyHeld.length;
  for (const g of GROUPS) {
    const split = splitFresh(groups[g], current, sent);
    groups[g] = split.fresh;
    unchanged += split.unchanged;
  }
  const fresh = GROUPS.flatMap((g) => groups[g]);
  const stale = await staleIds(
    deps.sql,
    key.workspaceId,
    input.cwd,
    input.deleted,
    fresh.map((i) => i.id),
  );
  for (const g of GROUPS) groups[g] = groups[g].map((i) => (stale.has(i.id) ? { ...i, possibly_stale: true } : i));

  // An edit's "ask" is the tool, the path and the code it writes: its words are no gaps.
  const gaps = input.editSummary === undefined ? brief.gaps : [];
  const { proposed, ...tiers } = groups;
  const shown: Brief = { ...brief, tiers, proposed, gaps, synthesis: freshSynthesis(brief.synthesis, new Set(fresh.map((i) => i.id))) };
  const lines = renderBrief(shown).split('\n');
  if (unchanged > 0) {
    const note = `(${unchanged} item${unchanged === 1 ? '' : 's'} unchanged since the last brief in this session: not repeated)`;
    lines.splice(lines.length - 1, 0, note);
  }
  const text = fitContext(lines.join('\n'));
  // Remembered as held: what the cut left in, and of it what was sent whole (in full, or a line
  // that did not have to be cut); an item cut off, or sent as the start of a longer text, comes again.
  const held = fresh.filter((i) => (i.expanded || !i.text.endsWith('…')) && text.includes(i.id));
  await markSent(deps.sql, key, dedupe(held.map((i) => ({ id: i.id, version: current.get(i.id)! }))));
  return text;
}

/**
 * The synthesis less its sentences that cite only items the session already holds. A sentence
 * ends at a full stop after its citations, or after the words listed behind them (the local
 * synthesis: "Already decided: Partial refunds [decision_…] (partial, refund)."), so what follows
 * a citation stays with it: split after every "]", a held sentence left its "(partial, refund)."
 * behind as a fragment of its own, and the agent read that first.
 */
export function freshSynthesis(synthesis: Brief['synthesis'], fresh: Set<string>): Brief['synthesis'] {
  if (fresh.size === 0) return { text: '', cites: [] };
  const parts = synthesis.text.split(/(?<=[\])][.!?])\s+/);
  const kept = parts.filter((part) => {
    const cited = [...part.matchAll(/\[([^\]\s]+)\]/g)].flatMap((m) => m[1]!.split(/[,;]\s*/));
    return cited.length === 0 || cited.some((id) => fresh.has(id));
  });
  return { text: kept.join(' ').trim(), cites: synthesis.cites.filter((id) => fresh.has(id)) };
}

function dedupe<T extends { id: string; version: number }>(items: T[]): { id: string; version: number }[] {
  const seen = new Map<string, number>();
  for (const i of items) seen.set(i.id, i.version);
  return [...seen].map(([id, version]) => ({ id, version }));
}
