// The hosted policy judge: Claude (Haiku 4.5 by default) reads a record against a policy's text
// and answers whether it breaks it, as one JSON object.
import Anthropic from '@anthropic-ai/sdk';
import { anthropicFailure } from './anthropic-failure.js';
import { retryPolicy, type RetryOptions } from '../lib/retry.js';
import type { JudgeAnswer, JudgeRequest, PolicyJudge } from './judge.js';

const SYSTEM = `You review records written to a team's knowledge base against one policy.
Answer with a single JSON object and nothing else: {"violates": true|false, "reason": "<one sentence>"}.
"violates" is true only when the record clearly breaks the policy.`;

export interface AnthropicJudgeOptions {
  apiKey: string;
  baseURL?: string;
  model: string;
  /** Per request. */
  timeoutMs: number;
  /** Default 3 tries, waits from 500 ms up to 5 s: a write is waiting. */
  retry?: RetryOptions;
}

export function anthropicJudge(opts: AnthropicJudgeOptions): PolicyJudge {
  // The SDK's own retries are off: the shared policy (retry.ts) retries, as for every hosted client.
  const client = new Anthropic({ apiKey: opts.apiKey, baseURL: opts.baseURL, timeout: opts.timeoutMs, maxRetries: 0 });
  const policy = retryPolicy('anthropic', { maxAttempts: 3, baseDelayMs: 500, maxDelayMs: 5_000 }, opts.retry);
  return {
    name: `anthropic:${opts.model}`,
    async judge(req) {
      const ask = () =>
        client.messages.create({
          model: opts.model,
          max_tokens: 200,
          system: SYSTEM,
          messages: [
            {
              role: 'user',
              content: `Policy of collection "${req.collection}":\n${req.policy}\n\nRecord (${req.record.node_type}):\nTitle: ${req.record.title}\n${req.record.prose}\n${
                Object.keys(req.record.body).length ? `Body: ${JSON.stringify(req.record.body)}` : ''
              }`,
            },
          ],
        });
      const message = await policy.run('messages', ask, anthropicFailure);
      const text = message.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
      return parseAnswer(text);
    },
  };
}

/** The JSON object in the model's reply; a reply without one is a failure, not a pass. */
export function parseAnswer(text: string): JudgeAnswer {
  const match = text.match(/\{[\s\S]*\}/);
  if (!match) throw new Error(`judge reply holds no JSON: ${text.slice(0, 200)}`);
  const parsed = JSON.parse(match[0]) as { violates?: unknown; reason?: unknown };
  if (typeof parsed.violates !== 'boolean') throw new Error(`judge reply has no boolean "violates": ${match[0].slice(0, 200)}`);
  return { violates: parsed.violates, reason: typeof parsed.reason === 'string' ? parsed.reason : '' };
}
