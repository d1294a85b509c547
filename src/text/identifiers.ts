// The names in code: functions, types, fields and config keys a line defines, and the distinctive
// identifiers it uses (camelCase, snake_case, dotted or dashed keys), with how telling each is by
// its form and by how the code changes it. Plain words and language keywords are left out: a doc
// saying "return" expects nothing. Read by the alignment scan (a diff's names, src/align/) and by
// an edit hook's brief (the code being written, src/hooks/), and the spellings by retrieval's
// exact-name lookup.

/** removed: gone from the code; modified: on both sides (a changed value or signature); added: new; context: the enclosing definition of a changed hunk. */
export type IdentifierChange = 'removed' | 'modified' | 'added' | 'context';

export interface ChangedIdentifier {
  name: string;
  change: IdentifierChange;
  /** Defined (or keyed) on a changed line, rather than merely used there. */
  defined: boolean;
  /** How much a doc naming it says, before counting how many docs do: 0–1. */
  weight: number;
  /** How often the changed lines use it. */
  count: number;
}

/** A change's lines: what it adds, what it removes, and the definitions around it (hunk headers). */
export interface CodeLines {
  added: string[];
  removed: string[];
  contexts: string[];
}

const KEYWORDS = new Set(
  `func type struct interface package import return if else for range switch case default break continue go defer select chan map var const
  nil true false err error string int int8 int16 int32 int64 uint uint8 uint16 uint32 uint64 float32 float64 bool byte rune any len cap make new append copy delete panic recover
  function class extends implements export from async await let this self super null undefined void typeof instanceof throw try catch finally yield static public private protected readonly enum
  def lambda pass raise with elif none not and or is in as assert global nonlocal del print fn impl pub mut use mod crate where trait match loop ref move
  ctx context fmt errors Errorf Sprintf Printf Println New Error String Context time Duration Millisecond Second Minute Hour Now bytes strings strconv sync
  todo TODO FIXME http https www com org the a an of to be it on at by`.split(/\s+/),
);

const DEFINITION_PATTERNS = [
  /^\s*func\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)/, // Go functions and methods
  /^\s*type\s+([A-Za-z_]\w*)/, // Go and TS types
  /\b(?:function|class|interface|enum|struct|trait|message|service|rpc|def|fn)\s+([A-Za-z_$][\w$]*)/,
  /^\s*(?:export\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)/,
  /^\s*\[\[?([A-Za-z_][\w.-]*)\]\]?\s*$/, // a TOML or INI section
  /^\s*"?([A-Za-z_][\w.-]*)"?\s*(?::(?!=)|=(?!=))/, // a key, a field in a literal, an assignment
  /^\s+([A-Z]\w*)\s+[\w.*[\]]+(?:\s+`[^`]*`)?\s*(?:\/\/.*)?$/, // a Go struct field
];

const TOKEN = /[A-Za-z_][A-Za-z0-9_]*(?:[.-][A-Za-z_][A-Za-z0-9_]*)*/g;

/** camelCase / PascalCase with at least two humps, e.g. CheckTx, gossipDataRoutine, NewRPCFunc. */
const isCamel = (s: string) => /[a-z0-9][A-Z]|[A-Z]{2}[a-z]/.test(s);

/** A name made of several words: camelCase, snake_case, or a dotted or dashed key. */
export const isCompound = (name: string) => isCamel(name) || /[A-Za-z0-9]_[A-Za-z0-9]/.test(name) || /[a-z0-9][.-][a-z]/i.test(name);

/** How telling a name is by its form alone. */
function formWeight(name: string, defined: boolean): number {
  if (KEYWORDS.has(name) || KEYWORDS.has(name.toLowerCase()) || name.length < 3) return 0;
  if (/^_+$|^\d/.test(name)) return 0;
  const compound = isCompound(name);
  if (defined) return compound ? 1 : name.length >= 5 ? 0.7 : 0.5;
  if (compound) return 0.8;
  if (/^[A-Z][a-z]+$/.test(name) && name.length >= 6) return 0.35;
  return 0;
}

const CHANGE_WEIGHT: Record<IdentifierChange, number> = { removed: 1, modified: 0.9, context: 0.75, added: 0.55 };

function definedOn(line: string): string[] {
  const names: string[] = [];
  for (const p of DEFINITION_PATTERNS) {
    const m = line.match(p);
    if (m?.[1]) names.push(m[1]);
  }
  return names;
}

/** A dotted key's suffixes longer than this are not taken: no name worth matching is (a code term holds 100). */
const MAX_KEY_CHARS = 100;

/** A dotted or dashed token also stands for its last part (`cfg.Mempool.Recheck` → Recheck), and a selector's parts are not a config key. */
function tokensOf(line: string): string[] {
  const out: string[] = [];
  for (const raw of line.match(TOKEN) ?? []) {
    if (/[.]/.test(raw)) {
      const parts = raw.split('.');
      // A config key such as tx_index.indexer, also behind a selector (cfg.tx_index.indexer): its
      // suffixes up to MAX_KEY_CHARS, longest first. Every suffix of every length made a token of
      // 32,000 parts cost a billion characters and froze the server (a hostile review).
      if (/^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/.test(raw)) {
        const keys: string[] = [];
        let suffix = parts[parts.length - 1]!;
        let underscore = suffix.includes('_');
        for (let i = parts.length - 2; i >= 0; i--) {
          suffix = `${parts[i]}.${suffix}`;
          if (suffix.length > MAX_KEY_CHARS) break;
          underscore ||= parts[i]!.includes('_');
          if (underscore) keys.push(suffix);
        }
        for (let k = keys.length - 1; k >= 0; k--) out.push(keys[k]!);
      }
      for (const part of parts) out.push(part);
    } else out.push(raw);
  }
  return out;
}

interface Seen {
  added: number;
  removed: number;
  defined: boolean;
  context: boolean;
}

/**
 * The identifiers of a change's lines, most telling first; at most `limit`. `compoundOnly` keeps
 * only names of several words (for prose, where a capitalised word starts every sentence).
 */
export function lineIdentifiers(lines: CodeLines, limit = 40, compoundOnly = false): ChangedIdentifier[] {
  const seen = new Map<string, Seen>();
  const note = (name: string) => {
    let s = seen.get(name);
    if (!s) seen.set(name, (s = { added: 0, removed: 0, defined: false, context: false }));
    return s;
  };
  for (const [list, side] of [
    [lines.added, 'added'],
    [lines.removed, 'removed'],
  ] as const) {
    for (const line of list) {
      for (const name of definedOn(line)) note(name).defined = true;
      for (const name of tokensOf(line)) note(name)[side]++;
    }
  }
  for (const line of lines.contexts) for (const name of definedOn(line)) note(name).context = true;

  const out: ChangedIdentifier[] = [];
  for (const [name, s] of seen) {
    if (compoundOnly && !isCompound(name)) continue;
    const change: IdentifierChange = s.added && s.removed ? 'modified' : s.removed ? 'removed' : s.added ? 'added' : 'context';
    const defined = s.defined || s.context;
    const weight = formWeight(name, defined) * CHANGE_WEIGHT[change];
    if (weight > 0) out.push({ name, change, defined, weight: Math.round(weight * 1000) / 1000, count: s.added + s.removed });
  }
  return out.sort((a, b) => b.weight - a.weight || a.name.localeCompare(b.name)).slice(0, limit);
}

/**
 * The spellings a doc may use for a name: as written, snake_case and dashed (TimeoutCommit →
 * timeout_commit, timeout-commit), and run together (timeout_commit → timeoutcommit, which a
 * case-blind match finds as TimeoutCommit). Matching ignores case.
 */
export function spellings(name: string): string[] {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[\s_.-]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
  const forms = new Set([name.toLowerCase()]);
  if (words.length > 1 && !name.includes('.')) {
    forms.add(words.join('_'));
    forms.add(words.join('-'));
    forms.add(words.join(''));
  }
  return [...forms];
}

/** The words of a name, for a semantic query: gossipDataRoutine → gossip data routine. */
export const nameWords = (name: string) =>
  spellings(name)
    .find((s) => s.includes('_'))
    ?.replace(/_/g, ' ') ?? name.replace(/[._-]+/g, ' ');
