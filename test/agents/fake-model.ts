// A fake model API on loopback for the agent suite. It stands in for the three hosted model APIs
// the agent CLIs talk to — Anthropic's Messages API (`POST /v1/messages`, streamed as SSE or
// not), OpenAI's Responses API (`POST /v1/responses`, streamed as SSE, as Codex uses it) and
// Gemini's `:streamGenerateContent` / `:generateContent` — far enough for an agent's loop to run:
// it records every request body, and answers each main-loop request with the next step of a
// script (call a tool, then the next one, then a final text), counted by how many tool results
// the conversation already holds. Side requests (titles, token counts, routing) get a short text.
// Written from the public API references; no vendor SDK code.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { closeServer, listenOnLoopback } from './loopback.js';

export type Api = 'anthropic' | 'openai' | 'gemini';

export interface RecordedRequest {
  api: Api | 'other';
  method: string;
  url: string;
  /** the raw body: what the assertions search */
  raw: string;
  /** which script step it was answered with (-1: a side request or an unknown route) */
  step: number;
}

/** One scripted tool call: the first offered tool whose name matches `tool` gets `input`. */
export interface ToolStep {
  tool: RegExp;
  input: Record<string, unknown>;
  /** Codex's freeform tools (apply_patch) take raw text instead of JSON arguments */
  text?: string;
  /** what to search for when the tool is not offered up front but can be searched for (Codex's tool_search) */
  search?: string;
}

export interface Script {
  steps: ToolStep[];
  final: string;
}

type Reply =
  | { kind: 'tool'; name: string; namespace?: string; input: Record<string, unknown>; text?: string; freeform: boolean }
  | { kind: 'search'; query: string }
  | { kind: 'text'; text: string };

/** Tools a request offers: name, and whether it is a freeform (custom) tool. */
interface Offered {
  name: string;
  freeform: boolean;
  /** the Responses API's tool namespace (Codex puts an MCP server's tools under `mcp__<server>`) */
  namespace?: string;
}

/** What a request says about its tools and the conversation so far. */
interface Turn {
  offered: Offered[];
  /** tool results the conversation holds (tool searches not counted) */
  results: number;
  /** the API can search deferred tools (Codex offers MCP tools through `tool_search`) and has not yet */
  canSearch?: boolean;
}

type Json = Record<string, any>;

let ids = 0;
const nextId = (prefix: string) => `${prefix}_fake${String(++ids).padStart(6, '0')}`;

export class FakeModel {
  readonly requests: RecordedRequest[] = [];
  /** what the main loop is answered with; set before the agent starts */
  script: Script = { steps: [], final: 'ok' };
  private server: Server;

  constructor() {
    this.server = createServer((req, res) => {
      let raw = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => (raw += chunk));
      req.on('end', () => this.handle(req, raw, res));
    });
  }

  start(): Promise<string> {
    return listenOnLoopback(this.server);
  }

  stop(): Promise<void> {
    return closeServer(this.server);
  }

  /** Requests the script answered (the agent's main loop), in order. */
  mainRequests(): RecordedRequest[] {
    return this.requests.filter((r) => r.step >= 0);
  }

  private handle(req: IncomingMessage, raw: string, res: ServerResponse): void {
    const url = req.url ?? '';
    const record: RecordedRequest = { api: 'other', method: req.method ?? '', url, raw, step: -1 };
    this.requests.push(record);
    let body: Json = {};
    try {
      body = raw ? (JSON.parse(raw) as Json) : {};
    } catch {
      body = {};
    }
    if (req.method === 'POST' && /\/v1\/messages\/count_tokens/.test(url)) return json(res, { input_tokens: Math.ceil(raw.length / 4) });
    if (req.method === 'POST' && /\/v1\/messages(\?|$)/.test(url)) {
      record.api = 'anthropic';
      return anthropic(res, body, this.reply(record, { offered: anthropicTools(body), results: anthropicResults(body) }));
    }
    if (req.method === 'POST' && /\/responses(\?|$)/.test(url)) {
      record.api = 'openai';
      return openai(res, body, this.reply(record, openaiTurn(body)));
    }
    const gem = /\/models\/([^/:]+):(streamGenerateContent|generateContent|countTokens)/.exec(url);
    if (req.method === 'POST' && gem) {
      record.api = 'gemini';
      if (gem[2] === 'countTokens') return json(res, { totalTokens: Math.ceil(raw.length / 4) });
      return gemini(
        res,
        body,
        gem[2] === 'streamGenerateContent',
        this.reply(record, { offered: geminiTools(body), results: geminiResults(body) }, geminiJsonSchema(body)),
      );
    }
    json(res, { error: { type: 'not_found', message: `the fake model has no ${req.method} ${url}` } }, 404);
  }

  /** The script's next step for a main-loop request; a short text for anything else. */
  private reply(record: RecordedRequest, { offered, results, canSearch }: Turn, jsonSchema?: Json): Reply {
    if (jsonSchema) return { kind: 'text', text: JSON.stringify(sampleOf(jsonSchema)) };
    const isMain = this.script.steps.some((s) => offered.some((t) => s.tool.test(t.name)));
    if (!isMain) return { kind: 'text', text: 'ok' };
    record.step = results;
    const step = this.script.steps[results];
    if (!step) return { kind: 'text', text: this.script.final };
    const tool = offered.find((t) => step.tool.test(t.name));
    if (!tool && canSearch && step.search) return { kind: 'search', query: step.search };
    if (!tool)
      return {
        kind: 'text',
        text: `(fake model: no offered tool matches ${step.tool}; offered: ${offered.map((t) => t.name).join(', ')})`,
      };
    return { kind: 'tool', name: tool.name, namespace: tool.namespace, input: step.input, text: step.text, freeform: tool.freeform };
  }
}

function json(res: ServerResponse, value: unknown, status = 200): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

function sse(res: ServerResponse, events: { event?: string; data: unknown }[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const e of events) res.write(`${e.event ? `event: ${e.event}\n` : ''}data: ${JSON.stringify(e.data)}\n\n`);
  res.end();
}

// ---- Anthropic Messages ----

const anthropicTools = (body: Json): Offered[] =>
  (Array.isArray(body.tools) ? body.tools : []).map((t: Json) => ({ name: String(t.name), freeform: false }));

const anthropicResults = (body: Json): number =>
  (Array.isArray(body.messages) ? body.messages : []).reduce(
    (n: number, m: Json) => n + (Array.isArray(m.content) ? m.content.filter((b: Json) => b.type === 'tool_result').length : 0),
    0,
  );

function anthropic(res: ServerResponse, body: Json, reply: Reply): void {
  const id = nextId('msg');
  const usage = { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const block =
    reply.kind === 'tool'
      ? { type: 'tool_use', id: nextId('toolu'), name: reply.name, input: reply.input }
      : { type: 'text', text: reply.kind === 'text' ? reply.text : '' };
  const stop = reply.kind === 'tool' ? 'tool_use' : 'end_turn';
  const message = {
    id,
    type: 'message',
    role: 'assistant',
    model: body.model ?? 'fake',
    content: [block],
    stop_reason: stop,
    stop_sequence: null,
    usage,
  };
  if (!body.stream) return json(res, message);
  const start = block.type === 'tool_use' ? { ...block, input: {} } : { type: 'text', text: '' };
  const delta =
    block.type === 'tool_use'
      ? { type: 'input_json_delta', partial_json: JSON.stringify(reply.kind === 'tool' ? reply.input : {}) }
      : { type: 'text_delta', text: (block as { text: string }).text };
  sse(res, [
    { event: 'message_start', data: { type: 'message_start', message: { ...message, content: [], stop_reason: null } } },
    { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: start } },
    { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta } },
    { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
    {
      event: 'message_delta',
      data: { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 5 } },
    },
    { event: 'message_stop', data: { type: 'message_stop' } },
  ]);
}

// ---- OpenAI Responses ----

/** Function tools by name, also those grouped under a namespace or found by an earlier tool search. */
function openaiTurn(body: Json): Turn {
  const offered: Offered[] = [];
  let searchable = false;
  const walk = (tools: unknown, namespace?: string) => {
    for (const t of Array.isArray(tools) ? (tools as Json[]) : []) {
      if (t.type === 'tool_search') searchable = true;
      if (t.type === 'namespace') walk(t.tools, t.name as string);
      else if (typeof t.name === 'string')
        offered.push({ name: t.name, freeform: t.type === 'custom', ...(namespace ? { namespace } : {}) });
    }
  };
  walk(body.tools);
  const input = Array.isArray(body.input) ? (body.input as Json[]) : [];
  const searches = input.filter((i) => i.type === 'tool_search_output');
  for (const s of searches) walk(s.tools);
  const results = input.filter((i) => typeof i.type === 'string' && i.type.endsWith('call_output')).length;
  // One search per step: a search that found nothing is answered with the "no tool" text.
  const last = input.at(-1);
  return { offered, results, canSearch: searchable && last?.type !== 'tool_search_output' };
}

function openai(res: ServerResponse, body: Json, reply: Reply): void {
  const responseId = nextId('resp');
  const item =
    reply.kind === 'search'
      ? {
          type: 'tool_search_call',
          id: nextId('tsc'),
          call_id: nextId('call'),
          execution: 'client',
          arguments: { query: reply.query },
          status: 'completed',
        }
      : reply.kind === 'text'
        ? {
            type: 'message',
            id: nextId('msg'),
            role: 'assistant',
            status: 'completed',
            content: [{ type: 'output_text', text: reply.text, annotations: [] }],
          }
        : reply.freeform
          ? {
              type: 'custom_tool_call',
              id: nextId('ctc'),
              call_id: nextId('call'),
              name: reply.name,
              input: reply.text ?? '',
              status: 'completed',
            }
          : {
              type: 'function_call',
              id: nextId('fc'),
              call_id: nextId('call'),
              name: reply.name,
              ...(reply.namespace ? { namespace: reply.namespace } : {}),
              arguments: JSON.stringify(reply.input),
              status: 'completed',
            };
  const response = {
    id: responseId,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    model: body.model ?? 'fake',
    status: 'in_progress',
    output: [] as Json[],
  };
  const usage = {
    input_tokens: 10,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 5,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 15,
  };
  const events: { event?: string; data: unknown }[] = [
    { event: 'response.created', data: { type: 'response.created', response } },
    {
      event: 'response.output_item.added',
      data: { type: 'response.output_item.added', output_index: 0, item: { ...item, status: 'in_progress' } },
    },
  ];
  if (reply.kind === 'text') {
    events.push({
      event: 'response.output_text.delta',
      data: { type: 'response.output_text.delta', item_id: item.id, output_index: 0, content_index: 0, delta: reply.text },
    });
  }
  events.push(
    { event: 'response.output_item.done', data: { type: 'response.output_item.done', output_index: 0, item } },
    {
      event: 'response.completed',
      data: { type: 'response.completed', response: { ...response, status: 'completed', output: [item], usage } },
    },
  );
  if (body.stream === false) return json(res, { ...response, status: 'completed', output: [item], usage });
  sse(res, events);
}

// ---- Gemini generateContent ----

const geminiTools = (body: Json): Offered[] =>
  (Array.isArray(body.tools) ? body.tools : []).flatMap((t: Json) =>
    (Array.isArray(t.functionDeclarations) ? t.functionDeclarations : []).map((f: Json) => ({ name: String(f.name), freeform: false })),
  );

const geminiResults = (body: Json): number =>
  (Array.isArray(body.contents) ? body.contents : []).reduce(
    (n: number, c: Json) => n + (Array.isArray(c.parts) ? c.parts.filter((p: Json) => p.functionResponse).length : 0),
    0,
  );

/** Gemini CLI's own side calls (routing, next-speaker checks) ask for JSON by schema: their schema, or undefined. */
function geminiJsonSchema(body: Json): Json | undefined {
  const config = body.generationConfig as Json | undefined;
  if (config?.responseMimeType !== 'application/json') return undefined;
  return (config.responseJsonSchema ?? config.responseSchema ?? {}) as Json;
}

/** The smallest value a JSON schema accepts, good enough for a side call's answer. */
function sampleOf(schema: Json): unknown {
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  const type = String(schema.type ?? 'object').toLowerCase();
  if (type === 'string') return 'fake';
  if (type === 'number' || type === 'integer') return typeof schema.minimum === 'number' ? schema.minimum : 1;
  if (type === 'boolean') return false;
  if (type === 'array') return [];
  const out: Json = {};
  for (const [k, v] of Object.entries((schema.properties as Json | undefined) ?? {})) out[k] = sampleOf(v as Json);
  return out;
}

function gemini(res: ServerResponse, _body: Json, stream: boolean, reply: Reply): void {
  const part =
    reply.kind === 'tool' ? { functionCall: { name: reply.name, args: reply.input } } : { text: reply.kind === 'text' ? reply.text : '' };
  const chunk = {
    candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
    modelVersion: 'fake',
  };
  if (!stream) return json(res, chunk);
  sse(res, [{ data: chunk }]);
}
