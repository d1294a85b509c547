// The Google Drive connector kind: the files the service account sees (or those under the given
// folders), in one collection of the workspace it was added to; read every minute. Drive's push
// channels are optional and not used: the minute job alone keeps up.
import * as v from 'valibot';
import { AppError } from '../../errors.js';
import { parseInput } from '../../lib/validate.js';
import type { ConnectorKind } from '../kind.js';
import { sweepDrive } from './sweep.js';

export const DRIVE_ROUTING_KEY = 'account';

const FolderId = v.pipe(
  v.string(),
  v.trim(),
  v.regex(/^[A-Za-z0-9_-]{5,200}$/, 'must be a Drive folder id (the part of the folder URL after /folders/)'),
);

const AddSchema = v.strictObject({
  kind: v.literal('drive'),
  folders: v.optional(v.pipe(v.array(FolderId), v.maxLength(50, 'at most 50 folders'))),
  collection: v.optional(v.pipe(v.string(), v.regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'must be a collection slug'))),
});

export const driveKind: ConnectorKind = {
  kind: 'drive',
  sweepSchedule: '* * * * *',
  parseAdd(raw) {
    const input = parseInput(AddSchema, raw, 'drive connector');
    const folders = [...new Set(input.folders ?? [])].sort();
    const target = folders.join(',');
    if (target.length > 2000) throw new AppError('validation_failed', 'the folder list is too long');
    return { kind: 'drive', routingKey: DRIVE_ROUTING_KEY, target, config: { folders, collection: input.collection ?? 'drive' } };
  },
  sweep: sweepDrive,
  handleDelivery: async () => {
    throw new AppError('validation_failed', 'the Drive connector takes no webhook deliveries');
  },
};
