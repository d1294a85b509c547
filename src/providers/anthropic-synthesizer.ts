// The hosted synthesis: Claude (Haiku 4.5 by default) writes the brief's ≤70-word answer from
// its items. The model is held to the contract afterwards, not trusted with it: the text is cut
// to 70 words and only ids of the given items count as citations.
import Anthropic from '@anthropic-ai/sdk';
import { anthropicFailure } from './anthropic-failure.js';
import { retryPolicy, type RetryOptions } from '../lib/retry.js';
import { mentionOf } from '../text/id-mentions.js';
import type { Synthesis, SynthesisItem, Synthesizer } from './synthesizer.js';

export const MAX_WORDS = 70;
/** Each item's text is trimmed to this many characters in the prompt; the brief expands to 1,200. */
const ITEM_CHARS = 600;
/** Items beyond these add tokens, not answers: the brief hands them over best first per tier. */
const MAX_ITEMS = 60;

export interface AnthropicSynthesizerOptions {
  apiKey: string;
  baseURL?: string;
  /** Default `claude-haiku-4-5`. */
  model?: string;
  timeoutMs: number;
  /** Default 3 tries, waits from 500 ms up to 5 s: a brief is waiting (and its deadline aborts the waits). */
  retry?: RetryOptions;
}

const SYSTEM = `You write the synthesis at the top of a brief that a coding agent reads before it starts work.
Answer the ask from the numbered items only, in at most ${MAX_WORDS} words of plain prose.
After each claim, cite the ids of the items it rests on in square brackets, e.g. [rule_01ABC] or [decision_01ABC, rule_01DEF].
Put what the agent must obey first, then what is already decided, then what is changing.
Cite only ids that appear in the items. If the items do not answer the ask, say so in one sentence.
An item marked "ADR rejected", "ADR proposed" or the like is not in force: never state it as decided.`;

/** Text trimmed to `max` characters at a word, marked when cut. */
function trimText(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max);
  const atWord = cut.lastIndexOf(' ');
  return `${(atWord > max / 2 ? cut.slice(0, atWord) : cut).trimEnd()}…`;
}

/** The user turn: the ask, then each item as `[id] (tier) title` (`(tier; ADR rejected)` for one not in force) and its trimmed text. */
export function buildPrompt(about: string, items: SynthesisItem[]): string {
  const listed = items.slice(0, MAX_ITEMS).map((item, i) => {
    const why = `${item.note ? `; ${item.note}` : ''}${item.names ? `; names ${item.names}, in the code being written` : ''}`;
    const head = `${i + 1}. [${item.id}] (${item.tier}${why})${item.title.trim() ? ` ${trimText(item.title, 200)}` : ''}`;
    const body = trimText(item.text, ITEM_CHARS);
    return body ? `${head}\n${body}` : head;
  });
  return `Ask: ${about.trim()}\n\nItems:\n${listed.join('\n\n')}`;
}

/** At most `max` whitespace-separated words; a cut answer ends in an ellipsis on its last word. */
export function limitWords(text: string, max = MAX_WORDS): string {
  const words = text.trim().split(/\s+/).filter(Boolean);
  if (words.length <= max) return words.join(' ');
  return `${words
    .slice(0, max)
    .join(' ')
    .replace(/[,;:]+$/, '')}…`;
}

/**
 * The given items' ids that the text names, in order of first mention. An id counts only as a
 * whole token (not inside a longer id), and an id the model invented never counts.
 */
export function citedIds(text: string, items: SynthesisItem[]): string[] {
  const found: { id: string; at: number }[] = [];
  for (const id of new Set(items.map((i) => i.id))) {
    if (!id) continue;
    const at = mentionOf(text, id);
    if (at >= 0) found.push({ id, at });
  }
  return found.sort((a, b) => a.at - b.at).map((f) => f.id);
}

export function anthropicSynthesizer(opts: AnthropicSynthesizerOptions): Synthesizer {
  const model = opts.model ?? 'claude-haiku-4-5';
  // The SDK's own retries are off: the shared policy (retry.ts) retries, as for every hosted client.
  const client = new Anthropic({ apiKey: opts.apiKey, baseURL: opts.baseURL, timeout: opts.timeoutMs, maxRetries: 0 });
  const policy = retryPolicy('anthropic', { maxAttempts: 3, baseDelayMs: 500, maxDelayMs: 5_000 }, opts.retry);
  return {
    name: `anthropic:${model}`,
    async synthesize(about, items, signal): Promise<Synthesis> {
      if (signal?.aborted) throw new DOMException('anthropic synthesis aborted', 'AbortError');
      // Nothing to draw on: an empty synthesis, as the local synthesizer gives, without a call.
      if (items.length === 0) return { text: '', cites: [] };
      const message = await policy.run(
        'messages',
        () =>
          client.messages.create(
            {
              model,
              // 70 words and their citations fit well inside this; it only stops a runaway answer.
              max_tokens: 400,
              system: SYSTEM,
              messages: [{ role: 'user', content: buildPrompt(about, items) }],
            },
            { signal },
          ),
        anthropicFailure,
        signal,
      );
      const raw = message.content.map((block) => (block.type === 'text' ? block.text : '')).join(' ');
      const text = limitWords(raw);
      return { text, cites: citedIds(text, items) };
    },
  };
}
