// The scale suite's clients: each loops over REST and MCP calls against one of the API
// processes until told to stop, and records every answer (status, latency, the phase it came
// in, which process it went to) and every write acknowledged, for test/scale/load.test.ts to
// check against Postgres afterwards.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connectMcp } from '../helpers/mcp.js';

export type Phase = 'before kill' | 'after kills' | 'primary down' | 'after';
/** The clients' kinds, then the webhook senders' and the docs pack's registrations (test/scale/webhooks.ts). */
export type Kind = 'capture' | 'changeset' | 'relate' | 'brief' | 'search' | 'mcp' | 'github' | 'slack' | 'pack';

/** One request: `status` is the HTTP status, 'conn' for no answer (refused, reset), 'timeout' past the deadline. */
export interface Sample {
  kind: Kind;
  phase: Phase;
  api: number;
  status: number | 'conn' | 'timeout';
  ms: number;
  /** A 503 carried Retry-After. */
  retryAfter?: boolean;
  /** An MCP tool's error code, when it answered isError. */
  mcpError?: string;
  /** Why a request got no answer (the error, its cause's code and message, and what the socket had carried: failureDetail), or the body of an error answer other than a 503. */
  detail?: string;
  /** When it was sent (ISO), to read beside the processes' logs. */
  at?: string;
}

export interface AckedCapture {
  id: string;
  title: string;
  prose: string;
}
export interface AckedChangeset {
  summary: string;
  changesetId: string;
  created: string[];
  superseded?: string;
}

export interface Ledger {
  samples: Sample[];
  captures: AckedCapture[];
  changesets: AckedChangeset[];
  relates: string[];
  /** Writes sent that got no answer: they may or may not have landed, but never twice. */
  unanswered: { kind: Kind; marker: string }[];
}

/** No request waits longer: a hang past it fails the suite. */
export const DEADLINE_MS = 30_000;
export const COLLECTION = 'scale';
const WORDS =
  'ledger refund invoice shard replica cache quota route deploy schema index budget audit payment customer release review incident owner policy retry window batch report'.split(
    ' ',
  );

/**
 * What a request that got no answer says about why: fetch's "fetch failed" alone does not tell
 * a refused connection from a keep-alive socket the server closed as it was reused or a reset
 * mid-answer, so the cause chain's codes and messages follow it, and for undici's socket errors
 * the bytes the socket had written and read in its life (a reused socket's count holds the
 * answers it carried before).
 */
export function failureDetail(err: unknown): string {
  type Failure = { name?: string; code?: unknown; message?: string; cause?: unknown; socket?: Record<string, unknown> };
  const parts: string[] = [];
  let e: unknown = err;
  while (e && parts.length < 4) {
    if (typeof e !== 'object') {
      parts.push(String(e));
      break;
    }
    const f = e as Failure;
    const code = typeof f.code === 'string' || typeof f.code === 'number' ? ` [${f.code}]` : '';
    const socket = f.socket
      ? ` (socket ${f.socket.localPort}->${f.socket.remotePort}: wrote ${f.socket.bytesWritten} B, read ${f.socket.bytesRead} B)`
      : '';
    parts.push(`${f.name ?? 'Error'}${code}: ${String(f.message).slice(0, 160)}${socket}`);
    e = f.cause;
  }
  return parts.join(' <- ');
}

export function prose(seed: number, words = 40): string {
  let s = seed >>> 0;
  const rand = () => (s = (Math.imul(s ^ (s >>> 15), 2246822519) + 0x9e3779b9) >>> 0) / 2 ** 32;
  return Array.from({ length: words }, () => WORDS[Math.floor(rand() * WORDS.length)]!).join(' ') + '.';
}

/** The HTTP status of an MCP tool's error code (src/errors.ts), for the tally. */
const MCP_STATUS: Record<string, number> = { unavailable: 503, conflict: 409, validation_failed: 400 };

export const ASKS = ['how are refunds approved?', 'who owns the payment ledger', 'what is the retry policy for invoices'];

interface ClientOpts {
  id: number;
  apiUrl: () => string;
  api: number;
  token: string;
  phase: () => Phase;
  stopped: () => boolean;
  ledger: Ledger;
}

/** One client's loop: a capture, a 50-op changeset, a relate, a brief, a search, an MCP call, in turn. */
export async function runClient(o: ClientOpts): Promise<void> {
  const mine: string[] = []; // this client's acknowledged captures, each superseded once
  const relatable: string[] = []; // records of its acknowledged changesets, each pair related once
  let mcp: Client | undefined;
  let lastStatus: Sample['status'] | undefined;
  const record = (s: Omit<Sample, 'phase' | 'api'>, phase: Phase) => {
    lastStatus = s.status;
    o.ledger.samples.push({ ...s, phase, api: o.api });
  };

  async function rest(kind: Kind, method: string, route: string, body?: unknown) {
    const phase = o.phase();
    const at = new Date().toISOString();
    const started = performance.now();
    try {
      const res = await fetch(`${o.apiUrl()}/api/v1${route}`, {
        method,
        headers: { authorization: `Bearer ${o.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(DEADLINE_MS),
      });
      const text = await res.text();
      const ms = performance.now() - started;
      // An error other than the primary's 503 keeps what the server said, to read beside its log.
      const said = res.status >= 400 && res.status !== 503 ? { detail: text.slice(0, 300), at } : {};
      record(
        { kind, status: res.status, ms, ...said, ...(res.status === 503 ? { retryAfter: res.headers.has('retry-after') } : {}) },
        phase,
      );
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    } catch (err) {
      const timeout = (err as Error).name === 'TimeoutError';
      record({ kind, status: timeout ? 'timeout' : 'conn', ms: performance.now() - started, detail: failureDetail(err), at }, phase);
      return undefined;
    }
  }

  async function mcpCall(n: number) {
    const phase = o.phase();
    const at = new Date().toISOString();
    const started = performance.now();
    try {
      mcp ??= await connectMcp(undefined as never, o.token, `${o.apiUrl()}/mcp`);
      const [name, args] = n % 2 === 0 ? ['doco_brief', { about: ASKS[n % ASKS.length] }] : ['doco_search', { q: WORDS[n % WORDS.length] }];
      const res = (await mcp.callTool({ name, arguments: args }, undefined, { timeout: DEADLINE_MS })) as {
        isError?: boolean;
        structuredContent?: { error?: { code?: string } };
      };
      const code = res.isError ? (res.structuredContent?.error?.code ?? 'unknown') : undefined;
      record(
        {
          kind: 'mcp',
          status: res.isError ? (MCP_STATUS[code!] ?? 500) : 200,
          ms: performance.now() - started,
          ...(code ? { mcpError: code } : {}),
        },
        phase,
      );
    } catch (err) {
      // The SDK's StreamableHTTPError carries the HTTP status the server answered as its code.
      const code = (err as { code?: unknown }).code;
      const timeout = /timed out|timeout/i.test(String((err as Error).message));
      const status = typeof code === 'number' && code >= 400 && code < 600 ? code : timeout ? 'timeout' : 'conn';
      record(
        {
          kind: 'mcp',
          status,
          ms: performance.now() - started,
          ...(status === 'conn' ? { detail: failureDetail(err), at } : {}),
        },
        phase,
      );
      await mcp?.close().catch(() => {});
      mcp = undefined;
    }
  }

  for (let n = 0; !o.stopped(); n++) {
    const marker = `scale-c${o.id}-n${n}`;
    switch (n % 6) {
      case 0: {
        const body = { collection: COLLECTION, node_type: 'decision', title: `${marker} decision`, prose: prose(o.id * 1e6 + n) };
        const res = await rest('capture', 'POST', '/capture', body);
        if (res?.status === 201) {
          o.ledger.captures.push({ id: res.body.node.id, title: body.title, prose: body.prose });
          mine.push(res.body.node.id);
        } else if (!res) o.ledger.unanswered.push({ kind: 'capture', marker });
        break;
      }
      case 1: {
        // 50 operations: 25 records, 24 edges chaining them, and a supersede of an earlier record of ours.
        const target = mine.shift();
        const ops: Record<string, unknown>[] = [];
        const creates = target ? 24 : 25;
        for (let i = 0; i < creates; i++)
          ops.push({
            op: 'create',
            alias: `r${i}`,
            node_type: 'log',
            title: `${marker} log ${i}`,
            prose: prose(o.id * 1e6 + n * 100 + i, 12),
          });
        for (let i = 1; i < creates; i++) ops.push({ op: 'relate', from: `$r${i}`, to: `$r${i - 1}`, edge_type: 'relates_to' });
        if (target)
          ops.push({ op: 'supersede', target, node_type: 'decision', title: `${marker} supersedes`, prose: prose(o.id * 1e6 + n + 7) });
        while (ops.length < 50)
          ops.push({ op: 'create', node_type: 'log', title: `${marker} pad ${ops.length}`, prose: prose(n * 31 + ops.length, 12) });
        const res = await rest('changeset', 'POST', '/changeset', { collection: COLLECTION, summary: marker, operations: ops });
        if (res?.status === 201) {
          const results = res.body.results as { id: string; op: string }[];
          relatable.push(
            ...results
              .filter((r) => r.op === 'create')
              .slice(0, 4)
              .map((r) => r.id),
          );
          o.ledger.changesets.push({
            summary: marker,
            changesetId: res.body.changeset_id,
            created: results.filter((r) => r.op === 'create' || r.op === 'relate' || r.op === 'supersede').map((r) => r.id),
            ...(target ? { superseded: target } : {}),
          });
        } else if (!res) o.ledger.unanswered.push({ kind: 'changeset', marker });
        break;
      }
      case 2: {
        if (relatable.length < 2) break;
        const [from, to] = [relatable.pop()!, relatable.pop()!]; // a second live edge of a type between two records is a 409
        const res = await rest('relate', 'POST', '/relate', { from, to, edge_type: 'supports' });
        if (res?.status === 201) o.ledger.relates.push(res.body.edge.id);
        break;
      }
      case 3:
        await rest('brief', 'GET', `/brief.json?about=${encodeURIComponent(ASKS[n % ASKS.length]!)}`);
        break;
      case 4:
        await rest('search', 'GET', `/search?q=${WORDS[n % WORDS.length]}`);
        break;
      case 5:
        await mcpCall(n);
        break;
    }
    // A client that got no answer or a 503 waits a moment before its next request, as a real
    // one would (Retry-After says 1 s; a refused connection is retried sooner).
    if (lastStatus === 'conn' || lastStatus === 503) await new Promise((r) => setTimeout(r, lastStatus === 503 ? 1000 : 250));
  }
  await mcp?.close().catch(() => {});
}

export function percentile(values: number[], p: number): number | undefined {
  if (!values.length) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!);
}
