// Bearer-token authentication for REST and MCP: 401 without a valid token. What the token may
// then do is the route's declaration (./admits.ts); a route that declares nothing admits only a
// person's write token.
import type { MiddlewareHandler } from 'hono';
import { authenticate, type AuthContext } from '../auth/tokens.js';
import type { Sql } from '../db/connect.js';
import { AppError } from '../errors.js';
import { admissionOfMatch, checkAdmitted, UNDECLARED } from './admits.js';
import type { AppEnv } from './deps.js';

export async function authFromHeader(sql: Sql, header: string | undefined): Promise<AuthContext> {
  const match = header?.match(/^Bearer\s+(\S+)\s*$/i);
  if (!match) throw new AppError('unauthorized', 'send Authorization: Bearer <token> (make one with `doco token create`)');
  const auth = await authenticate(sql, match[1]!);
  if (!auth) throw new AppError('unauthorized', 'the bearer token is unknown or revoked');
  return auth;
}

/** The caller's token on the context; on a route without a declaration, refused unless a person's write token. */
export const authenticated =
  (sql: Sql): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    const auth = await authFromHeader(sql, c.req.header('authorization'));
    c.set('auth', auth);
    const match = admissionOfMatch(c);
    if (match && !match.admission) checkAdmitted(UNDECLARED, auth, `${match.route} (which declares no admission)`);
    await next();
  };
