// A record's body fields beyond title and prose (a decision's question and alternatives, a doc
// section's pointer): each as a label and its value, clipped in a list, whole (`full`) where a
// record is read or reviewed. The pointer (where the record came from) is
// shown as fields with a link when it has a URL (source.tsx), a list of strings (a doc section's
// heading path) as one line, and anything else structured as JSON.
import { clip, Folded } from './ui.js';
import { InlineCode, isPointer, SourceFields } from './source.js';

const HIDDEN = new Set(['title', 'prose']);

export const fieldText = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value, null, 2));

const isStringList = (value: unknown): value is string[] => Array.isArray(value) && value.every((v) => typeof v === 'string');

/** Where a whole field's text folds (the rest still on the page). */
const FOLD_PAST = 20_000;

/** A field's text: whole when `full` (folded past FOLD_PAST characters), else clipped to `max`. */
function Shown({ text, max, full }: { text: string; max: number; full?: boolean }) {
  return full ? <Folded text={text} shown={FOLD_PAST} /> : <>{clip(text, max)}</>;
}

function FieldValue({ name, value, full }: { name: string; value: unknown; full?: boolean }) {
  if (typeof value === 'string') return <Shown text={value} max={400} full={full} />;
  if (name === 'pointer' && isPointer(value)) return <SourceFields pointer={value} />;
  if (isStringList(value) && value.length) {
    const text = value.join(name === 'heading_path' ? ' › ' : ', ');
    return full && text.length > FOLD_PAST ? <Folded text={text} shown={FOLD_PAST} /> : <InlineCode text={full ? text : clip(text, 600)} />;
  }
  return (
    <pre>
      <Shown text={fieldText(value)} max={600} full={full} />
    </pre>
  );
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
