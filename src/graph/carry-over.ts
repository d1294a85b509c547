// Supersede carries over (docs/writes.md): the replacement keeps the body fields of the record it
// replaces that the operation does not restate, so a decision keeps its question and
// alternatives when only its prose changes. Title and prose are the operation's own; a field
// restated as null is dropped. (Its touches carry over in SQL: sql/touches.sql.)
import { AppError } from '../errors.js';
import { LIMITS } from './limits.js';

export function carryOverBody(replaced: Record<string, unknown>, restated: Record<string, unknown>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(replaced)) {
    if (key !== 'title' && key !== 'prose') body[key] = value;
  }
  for (const [key, value] of Object.entries(restated)) {
    if (value === null) delete body[key];
    else body[key] = value;
  }
  if (Buffer.byteLength(JSON.stringify(body)) > LIMITS.bodyJsonBytes) {
    throw new AppError(
      'validation_failed',
      `the body carried over with the restated fields must serialise to at most ${LIMITS.bodyJsonBytes} bytes`,
    );
  }
  return body;
}
