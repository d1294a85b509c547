// The MCP SDK's low-level Server, answering a request whose params do not fit its method with
// JSON-RPC -32602 (Invalid params) and a one-line message. The SDK checks a request against its
// method's schema before any handler runs, and a failed check left its handler as an exception
// without a code, which the SDK answers -32603 (Internal error) with the check's raw issue list:
// a client's mistake reported as the server's failure. Each handler is registered behind a schema
// that only matches the method, and the method's own schema is checked here instead. (Server's
// own override is passed over: for tools/call it makes the same check, answering the raw issue
// list, and otherwise only checks task results, which Doco does not offer.)
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { getObjectShape, safeParse, type AnyObjectSchema, type SchemaOutput } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod/v4';

type Handler = Parameters<Server['setRequestHandler']>[1];
type Extra = Parameters<Handler>[1];
type Answer = ReturnType<Handler>;

interface Issue {
  path?: PropertyKey[];
  message?: string;
}

/** "params.name: Invalid input: expected string, received number" for each issue, at most three. */
export function describeIssues(error: unknown): string {
  const issues = ((error as { issues?: Issue[] })?.issues ?? []).slice(0, 3);
  const lines = issues.map((i) => `${(i.path ?? []).map(String).join('.') || 'request'}: ${i.message ?? 'invalid'}`);
  return `Invalid params: ${lines.join('; ') || 'the request does not fit its method'}`;
}

export class StrictParamsServer extends Server {
  // Runs for the handlers the SDK's constructor registers too (initialize): it is the prototype's.
  override setRequestHandler<T extends AnyObjectSchema>(schema: T, handler: (request: SchemaOutput<T>, extra: Extra) => Answer): void {
    const method = getObjectShape(schema)?.method;
    if (!method) throw new Error('a request schema names its method');
    const anyParams = z.looseObject({ method: method as z.ZodType });
    Protocol.prototype.setRequestHandler.call(this, anyParams, (request: unknown, extra: Extra) => {
      const checked = safeParse(schema, request);
      // The SDK answers an error's own `code` and `message` (McpError would prefix the message).
      if (!checked.success) throw Object.assign(new Error(describeIssues(checked.error)), { code: ErrorCode.InvalidParams });
      return handler(checked.data as SchemaOutput<T>, extra);
    });
  }
}
