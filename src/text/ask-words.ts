// An ask as a coding agent's hook phrases it ("Edit app/routes/billing.tsx: …") holds words that
// say what the agent does and where, not what the work is about: the brief's because lines and
// the local synthesis name neither.

/**
 * The verbs an agent's edit tools are named by (Write, Edit, MultiEdit, apply_patch…), which open
 * every edit hook's ask: in a brief they say what the agent does, not what it is about. (A search
 * for them still matches them.)
 */
export const EDIT_TOOL_WORDS: ReadonlySet<string> = new Set(['write', 'edit', 'multiedit', 'replace', 'patch', 'apply', 'notebookedit']);

/** The ask without the touched paths it names (as written, or by the path's last two segments). */
export function withoutPaths(about: string, touching: readonly string[]): string {
  let text = about;
  for (const p of touching) {
    const tail = p.split('/').slice(-2).join('/');
    for (const form of new Set([p, tail])) if (form) text = text.split(form).join(' ');
  }
  return text;
}

/**
 * The ask's words as written, lower-cased, each with its parts: a hyphenated word ("long-term",
 * "read-after-write") is one word. The index reads its parts as words of their own, so a line
 * naming what matched says "long-term" where the item holds all of it, not 'long' and 'term'.
 */
export function writtenWords(text: string): { written: string; parts: string[] }[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+(?:-[\p{L}\p{N}]+)*/gu) ?? []).map((written) => ({ written, parts: written.split('-') }));
}
