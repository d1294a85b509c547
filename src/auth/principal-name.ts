// What may name a principal: the one rule for every name a principal is made from (the CLI's
// --principal, the console's token form, an agent's tokens, a connector's or an ingester's own).
// A principal is a record whose title is its name, so a name also keeps within nodes.title's check.
import * as v from 'valibot';
import { parseInput } from '../lib/validate.js';

/** The longest name: nodes.title's check, `length(title) between 1 and 300` (migrations/0001_core.sql). */
export const PRINCIPAL_NAME_MAX = 300;

/** What marks an agent's name, in any case (`isAgentName`); the name after it follows the same rule. */
const AGENT_PREFIX = 'agent:';

/**
 * Whether a principal's name is an agent's: it begins `agent:` in any case. A principal is found
 * by its name in any case (auth/workspaces.ts `ensurePrincipal`, the unique index on
 * `lower(title)`), so `Agent:x` is the principal `agent:x` is; were it a person, an agent's tokens
 * bound to it would act as a person's. sql/agent_review.sql `doco.is_agent_principal` agrees.
 */
export const isAgentName = (name: string) => name.slice(0, AGENT_PREFIX.length).toLowerCase() === AGENT_PREFIX;

const CONTROL = /\p{Cc}/u;

/**
 * Why `name` cannot name a principal, or undefined when it can: it is not blank, neither begins
 * nor ends with white space, holds no control character, is at most PRINCIPAL_NAME_MAX
 * characters (as Postgres counts them), and `agent:` (in any case) is followed by an agent's name.
 */
export function principalNameProblem(name: string): string | undefined {
  if (!name.trim()) return 'must not be blank';
  if (CONTROL.test(name)) return 'must not hold control characters';
  if (name !== name.trim()) return 'must not begin or end with white space';
  if ([...name].length > PRINCIPAL_NAME_MAX) return `must be at most ${PRINCIPAL_NAME_MAX} characters`;
  if (isAgentName(name)) {
    const agent = name.slice(AGENT_PREFIX.length);
    if (!agent.trim() || agent !== agent.trimStart()) return `must name the agent after "${AGENT_PREFIX}" (agent:<agent>@<checkout>)`;
  }
  return undefined;
}

export const PrincipalNameSchema = v.pipe(
  v.string('must be text'),
  v.check(
    (name) => principalNameProblem(name) === undefined,
    (issue) => principalNameProblem(issue.input) ?? 'is not a principal name',
  ),
);

/** The name, or validation_failed (400) saying what is wrong with it, in the API's error shape. */
export function checkPrincipalName(name: string): string {
  return parseInput(PrincipalNameSchema, name, 'principal');
}
