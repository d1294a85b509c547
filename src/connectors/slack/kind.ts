// The Slack connector kind: one row per (team, channel), or per team for every public channel
// the bot is in; synced every minute.
import * as v from 'valibot';
import { parseInput } from '../../lib/validate.js';
import type { ConnectorKind } from '../kind.js';
import { handleSlackDelivery } from './events.js';
import { sweepSlack } from './sweep.js';

const AddSchema = v.strictObject({
  kind: v.literal('slack'),
  team_id: v.pipe(v.string(), v.trim(), v.regex(/^[TE][A-Z0-9]{2,20}$/, 'must be a Slack team id such as T0123ABCD')),
  channel: v.optional(
    v.pipe(v.string(), v.trim(), v.regex(/^C[A-Z0-9]{2,20}$/, 'must be a public channel id such as C0123ABCD (not a #name)')),
  ),
});

export const slackKind: ConnectorKind = {
  kind: 'slack',
  sweepSchedule: '* * * * *',
  parseAdd(raw) {
    const input = parseInput(AddSchema, raw, 'slack connector');
    return {
      kind: 'slack',
      routingKey: input.team_id,
      target: input.channel ?? '',
      config: input.channel ? { channel: input.channel } : { all_channels: true },
    };
  },
  sweep: sweepSlack,
  handleDelivery: handleSlackDelivery,
};
