// Codex CLI headless (`codex exec`) with Doco's hooks as `doco hooks install --agent codex` writes
// them (hooks.json, and the MCP entry with its token in the project .codex/config.toml), against the fake Responses
// API through a custom model provider. Codex runs project hooks only once they are trusted: the
// suite trusts them through `codex app-server`, as Codex's own /hooks screen does, and checks
// that Codex then lists every Doco hook as trusted.
import { expect, it } from 'vitest';
import { trustCodexHooks, type CodexHook } from './codex-trust.js';
import { captureInput, describeAgent, PAYMENTS_CODE, PAYMENTS_FILE } from './scenario.js';
import { PROMPT } from './world.js';

const patch = `*** Begin Patch\n*** Add File: ${PAYMENTS_FILE}\n${PAYMENTS_CODE.trimEnd()
  .split('\n')
  .map((l) => `+${l}`)
  .join('\n')}\n*** End Patch\n`;
let trust: { before: CodexHook[]; after: CodexHook[] } | undefined;

describeAgent(
  'codex',
  (world, bin) => {
    const env = { FAKE_OPENAI_KEY: 'fake-key' };
    return {
      script: {
        steps: [
          { tool: /doco_capture$/, input: captureInput('codex'), search: 'doco capture' },
          { tool: /^apply_patch$/, input: { input: patch }, text: patch },
        ],
        final: 'Added the payments module and recorded the refund decision.',
      },
      args: [
        'exec',
        '--json',
        '--dangerously-bypass-approvals-and-sandbox',
        '-c',
        'model_provider=fake',
        '-c',
        'model=gpt-5.5',
        '-c',
        `model_providers.fake={name="fake",base_url="${world.modelUrl}/v1",env_key="FAKE_OPENAI_KEY",wire_api="responses"}`,
        PROMPT,
      ],
      env,
      prepare: async () => {
        trust = await trustCodexHooks(bin, world.agentEnv(env), world.checkout);
      },
    };
  },
  () => {
    it("lists Doco's three hooks, untrusted after install and trusted once trusted through app-server", () => {
      const ours = (hooks: CodexHook[]) =>
        hooks.filter((h) => /doco\.js hook (session-start|prompt|edit) --agent codex$/.test(h.command ?? ''));
      expect(
        ours(trust!.before)
          .map((h) => h.eventName)
          .sort(),
      ).toEqual(['preToolUse', 'sessionStart', 'userPromptSubmit']);
      expect(ours(trust!.before).every((h) => h.trustStatus !== 'trusted')).toBe(true);
      expect(ours(trust!.after).map((h) => h.trustStatus)).toEqual(['trusted', 'trusted', 'trusted']);
    });
  },
);
