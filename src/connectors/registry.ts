// The connector kinds Doco knows, by name. A new kind adds one entry here.
import * as v from 'valibot';
import { AppError } from '../errors.js';
import { parseInput } from '../lib/validate.js';
import { driveKind } from './drive/kind.js';
import { githubKind } from './github/kind.js';
import type { ConnectorKind } from './kind.js';
import { notionKind } from './notion/kind.js';
import { slackKind } from './slack/kind.js';
import type { NewConnector } from './store.js';

export const CONNECTOR_KINDS: Readonly<Record<string, ConnectorKind>> = {
  github: githubKind,
  slack: slackKind,
  notion: notionKind,
  drive: driveKind,
};

export function connectorKind(kind: string): ConnectorKind {
  const found = CONNECTOR_KINDS[kind];
  if (!found)
    throw new AppError('validation_failed', `unknown connector kind ${JSON.stringify(kind)}`, { kinds: Object.keys(CONNECTOR_KINDS) });
  return found;
}

const KindSchema = v.object({
  kind: v.picklist(Object.keys(CONNECTOR_KINDS), `must be one of ${Object.keys(CONNECTOR_KINDS).join(', ')}`),
});

/** An add request ({kind, …kind's fields}) → the row to store; bad input is validation_failed. */
export function parseAddConnector(raw: unknown): NewConnector {
  const { kind } = parseInput(KindSchema, raw, 'connector');
  return connectorKind(kind).parseAdd(raw);
}
