// Who may call what (docs/security.md): every REST route, MCP tool and console action declares
// the principals it admits and the scope it needs, next to the route, as `admits(…)`. Agents
// propose and people approve, so a route that declares nothing admits only a person's write
// token: a new route cannot forget to refuse agents. The declarations are read back from the
// app's routes (`routeTable`), which is how docs/security.md and test/http/route-table.test.ts
// stay true to the code.
import type { Context, MiddlewareHandler } from 'hono';
import { matchedRoutes, routePath } from 'hono/route';
import { findTargetHandler } from 'hono/utils/handler';
import { isAgentName } from '../auth/principal-name.js';
import type { Scope } from '../auth/tokens.js';
import { AppError } from '../errors.js';

/**
 * Who calls: a person (`cli:…`, a console user), an agent (`agent:…`), a source (a connector's
 * webhook, proving itself with its own signature) or anyone (no credential: health, the
 * sign-in form, Doco's own docs pack).
 */
export type Principal = 'person' | 'agent' | 'source' | 'anyone';

/** How the caller proves who it is. */
export type Credential =
  /** Authorization: Bearer <token> (REST, MCP). */
  | 'token'
  /** The console's signed session cookie (and, on a post, its CSRF token). */
  | 'session'
  /** A token pasted into the console's sign-in form. */
  | 'sign-in'
  /** The sender's signature over the raw body (GitHub, Slack, Notion). */
  | 'signature'
  | 'none';

export interface Admission {
  principals: readonly Principal[];
  /** What the token or session must allow: write, read (either scope), none (no credential). */
  scope: 'none' | Scope;
  credential: Credential;
  /** What the route does, for its refusals ("minting hook tokens"); the method and path otherwise. */
  action?: string;
}

/** What an undeclared route admits: a person's write token, never an agent. */
export const UNDECLARED: Admission = { principals: ['person'], scope: 'write', credential: 'token' };

const DECLARED = Symbol('doco.admission');
type Declared = { [DECLARED]?: Admission };

/** Marks a handler as the declaration of the route it is registered on. */
export function declare<H extends object>(handler: H, admission: Admission): H {
  return Object.assign(handler, { [DECLARED]: admission });
}

/** The declaration a handler carries (seen through the wrappers app.route() adds), if any. */
export function admissionOf(handler: unknown): Admission | undefined {
  if (typeof handler !== 'function') return undefined;
  return (findTargetHandler(handler) as Declared)[DECLARED];
}

export const principalOf = (principalName: string): 'person' | 'agent' => (isAgentName(principalName) ? 'agent' : 'person');

/** Refuses (403) a caller the admission does not name, or a read credential where it needs write. */
export function checkAdmitted(admission: Admission, caller: { principalName: string; scope: Scope }, route: string): void {
  const what = admission.action ?? route;
  const kind = principalOf(caller.principalName);
  if (!admission.principals.includes(kind)) {
    const who = admission.principals.filter((p) => p === 'person' || p === 'agent');
    throw new AppError(
      'forbidden',
      kind === 'agent'
        ? `${caller.principalName} is an agent, and ${what} is for people: agents propose through capture, relate and changeset, and a person approves`
        : `${what} admits ${who.length ? who.join(' and ') : 'no token'}, not ${caller.principalName}`,
      { principal: caller.principalName, admits: admission.principals, scope: admission.scope },
    );
  }
  if (admission.scope === 'write' && caller.scope !== 'write')
    throw new AppError(
      'forbidden',
      admission.action
        ? `${admission.action} needs a write token (make one with \`doco token create --scope write\`)`
        : 'this token is read-only; writing needs a write token',
    );
}

const describeRoute = (c: Context) => `${c.req.method} ${routePath(c)}`;

/**
 * A bearer-token route's declaration: who it admits and the scope it needs. It checks the
 * caller that `authenticated` (./auth.ts) put on the context, and without one it refuses (401).
 */
export function admits(admission: { principals: readonly ('person' | 'agent')[]; scope: Scope; action?: string }): MiddlewareHandler {
  const declared: Admission = { ...admission, credential: 'token' };
  const check: MiddlewareHandler = async (c, next) => {
    const auth = c.get('auth') as { principalName: string; scope: Scope } | undefined;
    if (!auth) throw new AppError('unauthorized', 'send Authorization: Bearer <token> (make one with `doco token create`)');
    checkAdmitted(declared, auth, describeRoute(c));
    await next();
  };
  return declare(check, declared);
}

/** A declaration with nothing to check here (a fresh function each time: the mark is per route). */
const noCheck = (admission: Admission): MiddlewareHandler =>
  declare<MiddlewareHandler>(async (_c, next) => {
    await next();
  }, admission);

/** A route anyone may call, with no credential: it reads nothing private and changes nothing of a workspace's. */
export const publicRoute = (): MiddlewareHandler => noCheck({ principals: ['anyone'], scope: 'none', credential: 'none' });

/** A webhook: no token, the sender's own signature over the raw body, checked by the route itself. */
export const signedBySource = (): MiddlewareHandler => noCheck({ principals: ['source'], scope: 'none', credential: 'signature' });

/**
 * The declaration of the route that will answer this request, as seen from a middleware at
 * `c.req.routeIndex`: the first matched handler after it that is not itself mounted with
 * `use('…*')` names the route, and a declaration is any handler registered on that route.
 */
export function admissionOfMatch(c: Context): { route: string; admission: Admission | undefined } | undefined {
  const matched = matchedRoutes(c);
  const endpoint = matched.slice(c.req.routeIndex + 1).find((r) => !r.path.endsWith('*'));
  if (!endpoint) return undefined;
  const declaration = matched.find((r) => r.method === endpoint.method && r.path === endpoint.path && admissionOf(r.handler));
  return { route: `${c.req.method} ${endpoint.path}`, admission: declaration ? admissionOf(declaration.handler) : undefined };
}

export interface DeclaredRoute {
  method: string;
  path: string;
  /** Every declaration registered on the route: exactly one is right, none or two is a mistake. */
  admissions: Admission[];
}

/**
 * Every route of an app (`app.routes`) with its declarations, in registration order.
 * Middleware mounted with `use` (a path ending in `*`) is not a route.
 */
export function routeTable(routes: readonly { method: string; path: string; handler: unknown }[]): DeclaredRoute[] {
  const table = new Map<string, DeclaredRoute>();
  for (const r of routes) {
    if (r.path.endsWith('*')) continue;
    const key = `${r.method} ${r.path}`;
    const entry = table.get(key) ?? { method: r.method, path: r.path, admissions: [] };
    table.set(key, entry);
    const admission = admissionOf(r.handler);
    if (admission) entry.admissions.push(admission);
  }
  return [...table.values()];
}
