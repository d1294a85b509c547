// The real MCP SDK client against Doco: in process (a fetch that calls app.fetch) or over HTTP,
// and tool-call helpers that check the text and structured results carry the same JSON.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expect } from 'vitest';

interface FetchingApp {
  fetch(request: Request): Response | Promise<Response>;
}

export interface ToolAnswer {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  content: { type: string; text?: string }[];
}

/** A connected client (closed by the caller); without a url it talks to `app` in process. */
export async function connectMcp(app: FetchingApp, token: string | undefined, url?: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(url ?? 'http://doco.test/mcp'), {
    ...(url ? {} : { fetch: async (input: string | URL, init?: RequestInit) => app.fetch(new Request(input, init)) }),
    ...(token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : {}),
  });
  const client = new Client({ name: 'doco-test', version: '0.0.0' });
  await client.connect(transport);
  return client;
}

export async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
  const res = (await client.callTool({ name, arguments: args })) as ToolAnswer;
  // The text content and the structured content carry the same JSON.
  expect(res.content[0]?.type).toBe('text');
  expect(JSON.parse(res.content[0]!.text!)).toEqual(JSON.parse(JSON.stringify(res.structuredContent)));
  return res;
}

/** Calls a tool that must succeed and returns its structured result. */
export async function callToolOk(client: Client, name: string, args: Record<string, unknown>): Promise<any> {
  const res = await callTool(client, name, args);
  expect(res.isError, JSON.stringify(res.structuredContent)).toBeFalsy();
  return res.structuredContent;
}
