// The standing orders a session starts with (docs/agents.md): the constitution's active records,
// the workspace's active rules, and what changed since the checkout's last session — compact,
// one line each (id, title, the first line of the text). Only active records are orders or
// changes; proposals made in that time (queued or drafting, awaiting review) are listed apart,
// under their own heading, each line marked as not approved.
import type { Sql } from '../db/connect.js';
import { loadConstitution } from '../retrieval/candidates.js';
import { proposalMark, STALE_SUFFIX } from '../brief/render.js';
import { PROPOSAL_LIFECYCLES } from '../brief/types.js';
import { plainText } from '../lib/plain-text.js';
import { readableText } from '../text/readable/readable-text.js';
import { cutText } from '../lib/well-formed.js';

export interface OrderLine {
  id: string;
  version: number;
  line: string;
  /** The line carries the record's whole text (its title and a one-line text, neither cut): only then is it the record as sent. */
  whole: boolean;
}

export interface StandingOrders {
  constitution: OrderLine[];
  rules: OrderLine[];
  changed: OrderLine[];
  changedMore: number;
  /** Proposals written or changed in the same window: not orders, listed apart. */
  proposed: OrderLine[];
  proposedMore: number;
  /** When "changed" starts: the checkout's last session, or null for a first session (last 7 days). */
  since: Date | null;
}

const FIRST_SESSION_WINDOW_MS = 7 * 86_400_000;
const CHANGED_LIMIT = 15;
const PROPOSED_LIMIT = 10;
const RULE_LIMIT = 30;

const oneLine = (s: string, n: number) => {
  const flat = plainText(s).replace(/\s+/g, ' ').trim();
  return flat.length > n ? `${cutText(flat, n - 1)}…` : flat;
};

/** A Markdown heading line: a doc's intro opens with its `# Title`, which is the record's title too. */
const HEADING = /^ {0,3}#{1,6}(?:[ \t]|$)/;

const TITLE_CHARS = 120;
const FIRST_LINE_CHARS = 140;

function describe(r: { id: string; title: string; prose: string }): { line: string; whole: boolean } {
  // The first line an agent reads as text: not a heading, a comment or a link definition.
  const textLines = readableText(r.prose)
    .split('\n')
    .filter((l) => l.trim() && !HEADING.test(l));
  const first = oneLine(textLines[0] ?? '', FIRST_LINE_CHARS);
  const title = oneLine(r.title, TITLE_CHARS);
  const rest = first && !first.startsWith(r.title.replace(/…$/, '')) ? ` — ${first}` : '';
  const whole = textLines.length <= 1 && !first.endsWith('…') && !title.endsWith('…') && r.prose.length < PROSE_READ_CHARS;
  return { line: `${r.id}  ${title}${rest}`, whole };
}

/** How much of a record's prose is read for its line (`left(prose, …)` below). */
const PROSE_READ_CHARS = 400;

export async function loadStandingOrders(sql: Sql, workspaceId: string, since: Date | null): Promise<StandingOrders> {
  const constitution = await loadConstitution(sql, workspaceId, 30);
  const inConstitution = new Set(constitution.map((c) => c.id));
  const versions = new Map(
    (await sql<{ id: string; version: number }[]>`select id, version from doco.nodes where id = any(${[...inConstitution]}::text[])`).map(
      (r) => [r.id, r.version],
    ),
  );
  const rules = await sql<{ id: string; title: string; prose: string; version: number }[]>`
    select n.id, n.title, left(n.prose, ${PROSE_READ_CHARS}) as prose, n.version from doco.nodes n left join doco.node_ranks r on r.node_id = n.id
     where n.workspace_id = ${workspaceId} and n.node_type = 'rule' and n.lifecycle = 'active' and not (n.id = any(${[...inConstitution]}::text[]))
     order by coalesce(r.pagerank, 0) desc, n.updated_at desc, n.id limit ${RULE_LIMIT}`;
  const from = since ?? new Date(Date.now() - FIRST_SESSION_WINDOW_MS);
  // What is already listed as an order is not listed again as a change.
  const listed = [...inConstitution, ...rules.map((r) => r.id)];
  const recent = (lifecycles: readonly string[], limit: number) =>
    sql<{ id: string; title: string; prose: string; version: number; lifecycle: string; collection: string }[]>`
    select n.id, n.title, left(n.prose, ${PROSE_READ_CHARS}) as prose, n.version, n.lifecycle::text, c.slug as collection
      from doco.nodes n join doco.collections c on c.id = n.collection_id
     where n.workspace_id = ${workspaceId} and n.updated_at > ${from} and n.node_type <> 'principal'
       and n.lifecycle::text = any(${[...lifecycles]}::text[]) and not (n.id = any(${listed}::text[]))
     order by n.updated_at desc, n.id limit ${limit + 200}`;
  const [changed, proposed] = await Promise.all([recent(['active'], CHANGED_LIMIT), recent(PROPOSAL_LIFECYCLES, PROPOSED_LIMIT)]);
  return {
    constitution: constitution.map((c) => ({ id: c.id, version: versions.get(c.id) ?? 0, ...describe(c) })),
    rules: rules.map((r) => ({ id: r.id, version: r.version, ...describe(r) })),
    changed: changed.slice(0, CHANGED_LIMIT).map((r) => {
      const { line, whole } = describe(r);
      return { id: r.id, version: r.version, line: `${line} (${r.collection})`, whole };
    }),
    changedMore: Math.max(0, changed.length - CHANGED_LIMIT),
    proposed: proposed.slice(0, PROPOSED_LIMIT).map((r) => {
      const { line, whole } = describe(r);
      return {
        id: r.id,
        version: r.version,
        line: `${r.id}  ${proposalMark(r.lifecycle)} ${line.slice(r.id.length + 2)} (${r.collection})`,
        whole,
      };
    }),
    proposedMore: Math.max(0, proposed.length - PROPOSED_LIMIT),
    since,
  };
}

/** The plain-text standing orders; `stale` ids get the possibly-stale suffix. */
export function renderStandingOrders(o: StandingOrders, stale: Set<string>): string {
  const out: string[] = ['Doco standing orders for this workspace'];
  const section = (heading: string, lines: OrderLine[]) => {
    if (!lines.length) return;
    out.push(heading, ...lines.map((l) => `  ${l.line}${stale.has(l.id) ? STALE_SUFFIX : ''}`));
  };
  section('Constitution (must obey)', o.constitution);
  section('Rules', o.rules);
  const when = o.since
    ? `since the last session in this checkout (${o.since.toISOString()})`
    : 'in the last 7 days (first session in this checkout)';
  if (o.changed.length) {
    section(`Changed ${when}`, o.changed);
    if (o.changedMore) out.push(`  …and ${o.changedMore} more`);
  } else out.push(`Nothing changed ${when}.`);
  if (o.proposed.length) {
    section(`Proposed ${when}, not approved (awaiting a person's review: not orders)`, o.proposed);
    if (o.proposedMore) out.push(`  …and ${o.proposedMore} more`);
  }
  if (out.length === 2 && !o.constitution.length && !o.rules.length && !o.changed.length) return '';
  return out.join('\n');
}
