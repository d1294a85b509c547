// The MCP server (Streamable HTTP, stateless): built per request for the caller's token, using
// the SDK's low-level Server so tool schemas come from valibot, not zod (with params that do not
// fit their method answered -32602: ./strict-params.ts).
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Context } from 'hono';
import type { AuthContext } from '../../auth/tokens.js';
import type { ErrorBody } from '../../errors.js';
import type { AppDeps } from '../deps.js';
import { checkAdmitted, UNDECLARED } from '../admits.js';
import { toAppError } from '../errors.js';
import { readBoundedText } from '../body.js';
import { LIMITS } from '../../graph/limits.js';
import { methodNotAllowed, readEnvelope } from './envelope.js';
import { StrictParamsServer } from './strict-params.js';
import { publishedSchema, type McpTool } from './tool.js';
import { getTool } from './tools/get.js';
import { logTool } from './tools/log.js';
import { briefTool, searchTool } from './tools/retrieval.js';
import { captureTool, changesetTool, relateTool } from './tools/writes.js';

export const mcpTools: McpTool[] = [briefTool, searchTool, captureTool, changesetTool, relateTool, getTool, logTool];

export function buildMcpServer(deps: AppDeps, auth: AuthContext, tools: McpTool[] = mcpTools): Server {
  const server = new StrictParamsServer({ name: 'doco', version: deps.version }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: tools.map((t) => ({ name: t.name, description: t.description, inputSchema: publishedSchema(t) as { type: 'object' } })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (req): Promise<CallToolResult> => {
    const tool = tools.find((t) => t.name === req.params.name);
    if (!tool) return errorResult({ error: { code: 'not_found', message: `no tool named ${req.params.name}` } });
    try {
      checkAdmitted(tool.admits ? { ...tool.admits, credential: 'token' } : UNDECLARED, auth, `the MCP tool ${tool.name}`);
      const result = await tool.handle(deps, auth, req.params.arguments ?? {});
      return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result as Record<string, unknown> };
    } catch (err) {
      const body = toAppError(err).toBody();
      if (body.error.code === 'internal') console.error('[doco] MCP tool failed', req.params.name, err);
      return errorResult(body);
    }
  });
  return server;
}

/** Expected failures are tool results carrying our error body, not protocol errors. */
function errorResult(body: ErrorBody): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: JSON.stringify(body) }],
    structuredContent: body as unknown as Record<string, unknown>,
  };
}

export async function handleMcpRequest(deps: AppDeps, auth: AuthContext, c: Context): Promise<Response> {
  if (c.req.method !== 'POST') return methodNotAllowed(c.req.method);
  const envelope = readEnvelope(await readBoundedText(c, LIMITS.requestBytes, 'the body'));
  if (!envelope.ok) return envelope.response;
  const server = buildMcpServer(deps, auth);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    const response = await transport.handleRequest(c.req.raw, { parsedBody: envelope.message });
    // The SDK sets `Connection: keep-alive` on its event-stream answers; a Connection header set by
    // the app stops Node adding `Keep-Alive: timeout=…`, and without that hint a client keeps the
    // socket for its own default instead (undici: 4 s), closer to the server's timeout
    // (../keep-alive.ts). Connection is hop-by-hop: Node manages it.
    response.headers.delete('connection');
    return response;
  } finally {
    await server.close();
  }
}
