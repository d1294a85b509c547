// /api/v1/connectors: list the workspace's connectors with their status (last sync, cursors,
// last error), add one (write token; its first sweep is queued with it), read and remove one, and
// re-arm a Notion connector's webhook handshake. No secret is stored in a connector, so none can
// be returned.
import { Hono } from 'hono';
import type { AuthContext } from '../../auth/tokens.js';
import * as v from 'valibot';
import { rearmHandshake } from '../../connectors/notion/webhook.js';
import { parseAddConnector } from '../../connectors/registry.js';
import { addConnector, connectorStatus, findConnector, listConnectors, removeConnector } from '../../connectors/store.js';
import { AppError } from '../../errors.js';
import { parseInput } from '../../lib/validate.js';
import { queueSweep } from '../../connectors/queue.js';
import { admits, principalOf } from '../admits.js';
import type { AppDeps, AppEnv } from '../deps.js';
import { readJson } from '../read-json.js';

/**
 * Who sees a connector's operator-only state (a webhook's verification token, which signs the
 * events a source sends): a person's write token, as whoever adds and removes connectors.
 */
const operator = (auth: AuthContext) => auth.scope === 'write' && principalOf(auth.principalName) === 'person';

const IdSchema = v.pipe(v.string(), v.regex(/^connector_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be a connector id such as connector_01K8Z3QH…'));

export function connectorRoutes(deps: AppDeps) {
  const app = new Hono<AppEnv>();

  const owned = async (workspaceId: string, raw: string) => {
    const id = parseInput(IdSchema, raw, 'id');
    const row = await findConnector(deps.sql, id);
    if (!row || row.workspace_id !== workspaceId) throw new AppError('not_found', `no connector ${id} in this workspace`);
    return row;
  };

  app.get('/connectors', admits({ principals: ['person', 'agent'], scope: 'read' }), async (c) => {
    const rows = await listConnectors(deps.sql, c.get('auth').workspaceId);
    const reveal = operator(c.get('auth'));
    return c.json({ connectors: await Promise.all(rows.map((r) => connectorStatus(deps.sql, r, { reveal }))) });
  });

  app.post('/connectors', admits({ principals: ['person'], scope: 'write', action: 'adding a connector' }), async (c) => {
    const input = parseAddConnector(await readJson(c));
    const row = await deps.sql.begin(async (tx) => {
      const added = await addConnector(tx, c.get('auth').workspaceId, input);
      await queueSweep(tx, added.id);
      return added;
    });
    return c.json({ connector: await connectorStatus(deps.sql, row) }, 201);
  });

  app.get('/connectors/:id', admits({ principals: ['person', 'agent'], scope: 'read' }), async (c) => {
    const row = await owned(c.get('auth').workspaceId, c.req.param('id'));
    return c.json({ connector: await connectorStatus(deps.sql, row, { reveal: operator(c.get('auth')) }) });
  });

  // Opens another hour for Notion's handshake (and drops the token kept), for the person who
  // subscribes again in Notion or finds the token kept is not the one Notion sent.
  app.post(
    '/connectors/:id/rearm',
    admits({ principals: ['person'], scope: 'write', action: 're-arming a webhook handshake' }),
    async (c) => {
      const row = await owned(c.get('auth').workspaceId, c.req.param('id'));
      await deps.sql.begin((tx) => rearmHandshake(tx, row));
      return c.json({ connector: await connectorStatus(deps.sql, row, { reveal: true }) });
    },
  );

  app.delete('/connectors/:id', admits({ principals: ['person'], scope: 'write', action: 'removing a connector' }), async (c) => {
    const row = await owned(c.get('auth').workspaceId, c.req.param('id'));
    await removeConnector(deps.sql, row.workspace_id, row.id);
    return c.json({ id: row.id, deleted: true });
  });

  return app;
}
