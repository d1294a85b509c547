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

/** One word of an ask as written, with its parts. */
export interface WrittenWord {
  /** Lower-cased, but a camelCase name as written ("acceptHeader"). */
  written: string;
  /** Its parts, lower-cased: "long-term" gives 'long', 'term'; "acceptHeader" 'accept', 'header'; a plain word itself. */
  parts: string[];
  /** A camelCase name: the index holds it whole as well as by its parts, so an item holds it only when it holds the whole. */
  name: boolean;
}

/**
 * The ask's words as written, each with its parts: a hyphenated word ("long-term",
 * "read-after-write") and a camelCase name ("acceptHeader") are one word each. The index reads
 * their parts as words of their own (tokenize.ts splits a name where a lower-case letter meets a
 * capital, as here), so a line naming what matched says "long-term" where the item holds all of
 * it, not 'long' and 'term'; and "acceptHeader" only where the item holds the name itself, else
 * the parts it holds ('accept', 'header' in prose are not the name).
 */
export function writtenWords(text: string): WrittenWord[] {
  return (text.match(/[\p{L}\p{N}]+(?:-[\p{L}\p{N}]+)*/gu) ?? []).map((word) => {
    const pieces = word.split('-');
    const parts = pieces.flatMap((p) => p.split(/(?<=[a-z])(?=[A-Z])/)).map((p) => p.toLowerCase());
    const camel = parts.length > pieces.length;
    return { written: camel ? word : word.toLowerCase(), parts, name: camel && pieces.length === 1 };
  });
}
