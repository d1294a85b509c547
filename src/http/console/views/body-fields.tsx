// A record's body fields beyond title and prose (a decision's question and alternatives, a doc
// section's pointer): each as a label and its value, JSON for anything structured.
import { clip } from './ui.js';

const HIDDEN = new Set(['title', 'prose']);

export const fieldText = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value, null, 2));

export function BodyFields({ body, full }: { body: Record<string, unknown>; full?: boolean }) {
  const entries = Object.entries(body ?? {}).filter(([k]) => !HIDDEN.has(k));
  if (!entries.length) return null;
  return (
    <dl class="kv small" style="margin-bottom:10px">
      {entries.map(([k, value]) => (
        <>
          <dt>{k}</dt>
          <dd>{typeof value === 'string' ? clip(value, full ? 20_000 : 400) : <pre>{clip(fieldText(value), full ? 20_000 : 600)}</pre>}</dd>
        </>
      ))}
    </dl>
  );
}
