// What /mcp checks before the MCP SDK sees a request: POST only (stateless, so no event stream
// to GET and no session to DELETE), one JSON-RPC message per request (batches are gone from MCP
// since 2025-06-18: a batch of five doco_get calls made one 731-byte request answer 351 MB, and
// eight never answered), an envelope that is JSON-RPC 2.0, and nothing the hostile-input check
// refuses anywhere in it (the SDK's own parse took a `__proto__` in a tool's arguments as the
// prototype, so the tool never saw it). The SDK is handed the body parsed here.
import { findHostileValue } from '../../lib/hostile-input.js';

export type Envelope = { ok: true; message: Record<string, unknown> } | { ok: false; response: Response };

const rpcError = (status: number, code: number, message: string, id: unknown = null, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id }), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });

/** A JSON-RPC id a reply may echo: a string or a number (null is for replies to no request). */
const validId = (id: unknown) => typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));

/** The answer to a request /mcp does not serve: every method but POST. */
export const methodNotAllowed = (method: string) =>
  rpcError(405, -32000, `Method not allowed: ${method} (this MCP server is stateless: POST one JSON-RPC message)`, null, { allow: 'POST' });

/** The one JSON-RPC message a POST's text holds, or the answer refusing it. */
export function readEnvelope(text: string): Envelope {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { ok: false, response: rpcError(400, -32700, 'Parse error: the body is not JSON') };
  }
  if (Array.isArray(body))
    return {
      ok: false,
      response: rpcError(
        400,
        -32600,
        'Invalid Request: a batch is not accepted (MCP has none since 2025-06-18); send one message per request',
      ),
    };
  if (typeof body !== 'object' || body === null)
    return { ok: false, response: rpcError(400, -32600, 'Invalid Request: a JSON-RPC message is a JSON object') };
  const message = body as Record<string, unknown>;
  const id = validId(message.id) ? message.id : null;
  const isRequestOrNote = typeof message.method === 'string' && (message.id === undefined || validId(message.id));
  const isReply = validId(message.id) && ('result' in message || 'error' in message);
  if (message.jsonrpc !== '2.0' || !(isRequestOrNote || isReply))
    return {
      ok: false,
      response: rpcError(
        400,
        -32600,
        'Invalid Request: not a JSON-RPC 2.0 message (jsonrpc "2.0", a method, an id that is a string or a number)',
        id,
      ),
    };
  const hostile = findHostileValue(message);
  if (hostile) return { ok: false, response: rpcError(200, -32602, `Invalid params: ${hostile.path} ${hostile.message}`, id) };
  return { ok: true, message };
}
