// Bearer-token authentication for REST and MCP: 401 without a valid token, 403 when a read
// token asks to write.
import type { MiddlewareHandler } from 'hono';
import { authenticate, type AuthContext } from '../auth/tokens.js';
import type { Sql } from '../db/connect.js';
import { AppError } from '../errors.js';
import type { AppEnv } from './deps.js';

export async function authFromHeader(sql: Sql, header: string | undefined): Promise<AuthContext> {
  const match = header?.match(/^Bearer\s+(\S+)\s*$/i);
  if (!match) throw new AppError('unauthorized', 'send Authorization: Bearer <token> (make one with `doco token create`)');
  const auth = await authenticate(sql, match[1]!);
  if (!auth) throw new AppError('unauthorized', 'the bearer token is unknown or revoked');
  return auth;
}

export function requireScope(auth: AuthContext, scope: 'read' | 'write'): void {
  if (scope === 'write' && auth.scope !== 'write') throw new AppError('forbidden', 'this token is read-only; writing needs a write token');
}

export const authenticated =
  (sql: Sql): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    c.set('auth', await authFromHeader(sql, c.req.header('authorization')));
    await next();
  };

export const writeScope: MiddlewareHandler<AppEnv> = async (c, next) => {
  requireScope(c.get('auth'), 'write');
  await next();
};
