// The load benchmark's traffic: the three kinds of request a team's agents make all day — briefs,
// writes (captures and small changesets) and Claude Code prompt hooks — built from the
// synthetic corpus, and the closed-loop clients that send them.
import { randomUUID } from 'node:crypto';
import { rng } from './synthetic.js';
import type { SyntheticCorpus, SyntheticRecord } from './synthetic.js';

export const KINDS = ['brief', 'write', 'hook'] as const;
export type Kind = (typeof KINDS)[number];

/** The mix: 70% briefs, 20% writes, 10% hook prompts. */
const MIX: [Kind, number][] = [
  ['brief', 0.7],
  ['write', 0.9],
  ['hook', 1],
];
const REQUEST_TIMEOUT_MS = 30_000;
const KEEP_BODIES = 5;

export interface TrafficTarget {
  baseUrl: string;
  readToken: string;
  writeToken: string;
  /** The checkout the hook payloads name as their cwd (it exists, so the stale check runs). */
  checkout: string;
  corpus: SyntheticCorpus;
}

export interface Tally {
  latencies: Record<Kind, number[]>;
  /** Responses by kind and HTTP status. */
  statuses: Record<Kind, Map<number, number>>;
  /** The first few 5xx answers: kind, status, body. */
  serverErrors: string[];
  /** The first few other non-2xx answers, the same way. */
  otherErrors: string[];
  /** Requests that got no HTTP answer (refused, reset, timed out). */
  transportErrors: number;
  transportMessages: string[];
}

export const emptyTally = (): Tally => ({
  latencies: { brief: [], write: [], hook: [] },
  statuses: { brief: new Map(), write: new Map(), hook: new Map() },
  serverErrors: [],
  otherErrors: [],
  transportErrors: 0,
  transportMessages: [],
});

interface ClientState {
  index: number;
  r: ReturnType<typeof rng>;
  sessions: string[];
  /** Records this client created, the ones it may supersede (no other client touches them). */
  own: { id: string; node_type: string; collection: string }[];
  sent: number;
}

interface Request {
  path: string;
  token: string;
  body: unknown;
  /** Reads what the write created, for later supersedes. */
  onCreated?: (body: any) => void;
}

/** The corpus by service: the records a write may append to or relate to (all stay active). */
function byService(corpus: SyntheticCorpus): Map<string, SyntheticRecord[]> {
  const out = new Map<string, SyntheticRecord[]>();
  for (const rec of corpus.records) if (rec.collection !== 'constitution') out.set(rec.svc, [...(out.get(rec.svc) ?? []), rec]);
  return out;
}

export function requestMaker(target: TrafficTarget) {
  const { corpus } = target;
  const services = byService(corpus);
  const svcNames = [...services.keys()];
  const ask = (s: ClientState) => corpus.asks[Math.floor(s.r.next() * corpus.asks.length)]!;
  const note = (s: ClientState, svc: string) => {
    const a = ask(s);
    const file = a.touching[0] ?? `services/${svc}/handlers/load_${s.index}.go`;
    return `${a.about}: load client ${s.index} request ${s.sent} changed ${file}; follow-up in #${s.r.int(100, 5000)}.`;
  };

  const brief = (s: ClientState): Request => {
    const a = ask(s);
    return { path: '/api/v1/brief', token: target.readToken, body: { about: a.about, touching: a.touching } };
  };

  const hook = (s: ClientState): Request => {
    const session = s.r.pick(s.sessions);
    // A UserPromptSubmit payload as Claude Code sends it (docs/agents.md).
    return {
      path: '/api/v1/hooks/claude-code/prompt',
      token: target.readToken,
      body: {
        session_id: session,
        transcript_path: `/root/.claude/projects/-bench-checkout/${session}.jsonl`,
        cwd: target.checkout,
        permission_mode: 'default',
        hook_event_name: 'UserPromptSubmit',
        prompt: `${ask(s).about}. Keep the change small and add a test.`,
      },
    };
  };

  /** Keeps what a write created (a capture's node, a changeset's aliased creates), never what it only touched. */
  const remember = (s: ClientState, collection: string) => (body: any) => {
    const created = new Set<string>(body?.node ? [body.node.id] : Object.values((body?.aliases ?? {}) as Record<string, string>));
    for (const n of (body?.node ? [body.node] : (body?.nodes ?? [])) as { id: string; node_type: string; lifecycle: string }[]) {
      if (created.has(n.id) && n.lifecycle === 'active') s.own.push({ id: n.id, node_type: n.node_type, collection });
    }
    if (s.own.length > 50) s.own.splice(0, s.own.length - 50);
  };

  const capture = (s: ClientState, svc: string): Request => {
    const decision = s.r.next() < 0.5;
    const collection = decision ? `${svc}-decisions` : `${svc}-work`;
    const node_type = decision ? 'decision' : s.r.pick(['action', 'state', 'idea']);
    const body = decision ? { question: `How should ${svc} behave under load (client ${s.index}, ${s.sent})?` } : undefined;
    return {
      path: '/api/v1/capture',
      token: target.writeToken,
      body: { collection, node_type, title: `${svc}: load note ${s.index}.${s.sent}`, prose: note(s, svc), ...(body ? { body } : {}) },
      onCreated: remember(s, collection),
    };
  };

  /** 3–4 operations: a create, a relate to a shared record, an append to another, now and then a supersede of our own. */
  const changeset = (s: ClientState, svc: string): Request => {
    const peers = services.get(svc)!;
    const collection = `${svc}-work`;
    const operations: unknown[] = [
      { op: 'create', alias: 'a', node_type: 'action', title: `${svc}: load action ${s.index}.${s.sent}`, prose: note(s, svc) },
      { op: 'relate', from: '$a', to: s.r.pick(peers).id, edge_type: s.r.pick(['relates_to', 'derived_from', 'supports']) },
      { op: 'append', target: s.r.pick(peers).id, prose: `Load client ${s.index} noted: ${note(s, svc)}` },
    ];
    // A supersede's replacement lands in the changeset's collection: supersede only what lives there.
    const candidates = s.own.filter((o) => o.collection === collection);
    const mine = candidates.length && s.r.next() < 0.3 ? candidates[Math.floor(s.r.next() * candidates.length)] : undefined;
    if (mine) s.own.splice(s.own.indexOf(mine), 1);
    if (mine)
      operations.push({
        op: 'supersede',
        alias: 'b',
        target: mine.id,
        node_type: mine.node_type,
        title: `${svc}: superseded by load client ${s.index}.${s.sent}`,
        prose: note(s, svc),
      });
    return { path: '/api/v1/changeset', token: target.writeToken, body: { collection, operations }, onCreated: remember(s, collection) };
  };

  const write = (s: ClientState): Request => {
    const svc = s.r.pick(svcNames);
    return s.r.next() < 0.5 ? capture(s, svc) : changeset(s, svc);
  };

  return { brief, hook, write } satisfies Record<Kind, (s: ClientState) => Request>;
}

function pickKind(s: ClientState): Kind {
  const x = s.r.next();
  return MIX.find(([, upTo]) => x < upTo)![0];
}

async function send(target: TrafficTarget, req: Request): Promise<{ status: number; text: string }> {
  const res = await fetch(`${target.baseUrl}${req.path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${req.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(req.body),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  return { status: res.status, text: await res.text() };
}

/** One closed-loop client: the next request goes when the last one has answered, until `until`. */
async function runClient(
  target: TrafficTarget,
  make: ReturnType<typeof requestMaker>,
  index: number,
  until: number,
  tally: Tally,
): Promise<void> {
  const s: ClientState = { index, r: rng(1_000 + index), sessions: [randomUUID(), randomUUID(), randomUUID()], own: [], sent: 0 };
  while (performance.now() < until) {
    const kind = pickKind(s);
    const req = make[kind](s);
    s.sent++;
    const started = performance.now();
    let answer: { status: number; text: string };
    try {
      answer = await send(target, req);
    } catch (err) {
      tally.transportErrors++;
      if (tally.transportMessages.length < KEEP_BODIES) tally.transportMessages.push(`${kind} ${req.path}: ${(err as Error).message}`);
      await new Promise((r) => setTimeout(r, 250)); // a server that is down is not hammered
      continue;
    }
    tally.latencies[kind].push(performance.now() - started);
    const counts = tally.statuses[kind];
    counts.set(answer.status, (counts.get(answer.status) ?? 0) + 1);
    const ok = answer.status >= 200 && answer.status < 300;
    const kept = answer.status >= 500 ? tally.serverErrors : tally.otherErrors;
    if (!ok && kept.length < KEEP_BODIES) kept.push(`${kind} ${req.path} → ${answer.status}: ${answer.text.slice(0, 500)}`);
    if (ok && req.onCreated) req.onCreated(JSON.parse(answer.text));
  }
}

/** `clients` closed-loop clients for `seconds`; each stops by itself at the end (a request in flight finishes). */
export async function runTraffic(target: TrafficTarget, opts: { clients: number; seconds: number }, tally: Tally): Promise<number> {
  const make = requestMaker(target);
  const started = performance.now();
  const until = started + opts.seconds * 1000;
  await Promise.all(Array.from({ length: opts.clients }, (_, i) => runClient(target, make, i, until, tally)));
  return (performance.now() - started) / 1000;
}
