// What one MCP tool is: a name, a description, a valibot input schema (published as JSON
// Schema), whom it admits (../admits.ts) and a handler that gets the caller's auth. Tools stay
// apart from the transport.
import { toJsonSchema } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import type { AuthContext, Scope } from '../../auth/tokens.js';
import type { AppDeps } from '../deps.js';

export interface McpTool {
  name: string;
  description: string;
  inputSchema: v.GenericSchema;
  /**
   * Whom the tool admits and the scope it needs; the server refuses anyone else (`forbidden`)
   * before the handler runs. A tool without one admits only a person's write token.
   */
  admits: { principals: readonly ('person' | 'agent')[]; scope: Scope };
  handle(deps: AppDeps, auth: AuthContext, args: unknown): Promise<unknown>;
}

export function publishedSchema(tool: McpTool): Record<string, unknown> {
  const { $schema: _drop, ...schema } = toJsonSchema(tool.inputSchema, { errorMode: 'ignore' }) as Record<string, unknown>;
  return schema;
}
