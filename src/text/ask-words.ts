// An ask as a coding agent's hook phrases it ("Edit app/routes/billing.tsx: …") holds words that
// say what the agent does and where, not what the work is about: the brief's because lines and
// the local synthesis name neither.

/**
 * The verbs an agent's edit tools are named by (Write, Edit, MultiEdit, apply_patch…), which open
 * every edit hook's ask: in a brief they say what the agent does, not what it is about. (A search
 * for them still matches them.)
 */
export const EDIT_TOOL_WORDS: ReadonlySet<string> = new Set(['write', 'edit', 'multiedit', 'replace', 'patch', 'apply', 'notebookedit']);

/**
 * Words of code that are no English word a prose ask would use: a keyword or a common short name
 * ('func', 'nil', 'ctx'). The docs need not name them, so they are never a gap (src/brief/gaps.ts).
 */
export const CODE_ONLY_WORDS: ReadonlySet<string> = new Set(
  (
    'func bool int int8 int16 int32 int64 uint uint8 uint16 uint32 uint64 float32 float64 const var nil null err ctx cfg ' +
    'struct void async await typeof def self'
  ).split(' '),
);

/**
 * Words of code an edit's ask quotes (its first line of code) that name no topic there: those
 * above, and the keywords, built-in types and struct-tag names that are English words too
 * ('package', 'string', 'json'). Said as what an item matched they told the agent nothing: of one
 * Go file's Write, 5 of 14 items were there for 'package' alone; 'json', 'yaml' and 'int' led
 * because lines. An edit's only: in a prose ask, 'package' or 'interface' is a word about something.
 */
export const CODE_KEYWORDS: ReadonlySet<string> = new Set([
  ...CODE_ONLY_WORDS,
  ...(
    'package import export default function return type interface let class this new if else for range switch case ' +
    'break continue go defer chan map select fn pub mut impl mod crate use public private protected static final none ' +
    'true false float string str byte bytes rune error json yaml toml xml omitempty'
  ).split(' '),
]);

/** Whether `about` is an edit hook's ask: the tool, the paths it edits, then the code's first line (src/hooks/agents.ts). */
export const isEditAsk = (about: string): boolean =>
  /^(?:Edit|Write|MultiEdit|NotebookEdit|apply_patch|replace|write_file) [^\s:,]*[./][^\s:,]*(?:, [^\s:,]+)*(?::|$)/.test(about);

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
