// Renders a word diff: insertions and deletions marked with <ins>/<del> (announced by screen
// readers, visible without colour as underline-free highlight and strike-through).
import type { DiffPart } from '../diff.js';

export function Diff({ parts, label }: { parts: DiffPart[]; label: string }) {
  return (
    <div class="diff" aria-label={label}>
      {parts.map((p) => (p.kind === 'add' ? <ins>{p.text}</ins> : p.kind === 'del' ? <del>{p.text}</del> : p.text))}
    </div>
  );
}
