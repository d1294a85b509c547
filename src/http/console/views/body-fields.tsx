// A record's body fields beyond title and prose (a decision's question and alternatives, a doc
// section's pointer): each as a label and its value. The pointer (where the record came from) is
// shown as fields with a link when it has a URL (source.tsx), a list of strings (a doc section's
// heading path) as one line, and anything else structured as JSON.
import { clip } from './ui.js';
import { InlineCode, isPointer, SourceFields } from './source.js';

const HIDDEN = new Set(['title', 'prose']);

export const fieldText = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value, null, 2));

const isStringList = (value: unknown): value is string[] => Array.isArray(value) && value.every((v) => typeof v === 'string');

function FieldValue({ name, value, full }: { name: string; value: unknown; full?: boolean }) {
  if (typeof value === 'string') return <>{clip(value, full ? 20_000 : 400)}</>;
  if (name === 'pointer' && isPointer(value)) return <SourceFields pointer={value} />;
  if (isStringList(value) && value.length) return <InlineCode text={clip(value.join(name === 'heading_path' ? ' › ' : ', '), 600)} />;
  return <pre>{clip(fieldText(value), full ? 20_000 : 600)}</pre>;
}

export function BodyFields({ body, full }: { body: Record<string, unknown>; full?: boolean }) {
  const entries = Object.entries(body ?? {}).filter(([k]) => !HIDDEN.has(k));
  if (!entries.length) return null;
  return (
    <dl class="kv small" style="margin-bottom:10px">
      {entries.map(([k, value]) => (
        <>
          <dt>{k === 'pointer' ? 'source' : k.replace(/_/g, ' ')}</dt>
          <dd>
            <FieldValue name={k} value={value} full={full} />
          </dd>
        </>
      ))}
    </dl>
  );
}
