// Claude Code headless (`claude -p`) with Doco's hooks and MCP server as `doco hooks install
// --agent claude-code` writes them, against the fake Messages API (ANTHROPIC_BASE_URL).
import path from 'node:path';
import { expect, it } from 'vitest';
import { describeRun } from './run-agent.js';
import { captureInput, describeAgent, PAYMENTS_CODE, PAYMENTS_FILE } from './scenario.js';
import { PROMPT } from './world.js';

// Headless (-p), Claude Code connects the project's .mcp.json servers without the approval an
// interactive session asks for, and runs the hooks without a trust step: nothing to prepare.
describeAgent(
  'claude-code',
  (world) => {
    return {
      script: {
        steps: [
          { tool: /^mcp__doco__doco_capture$/, input: captureInput('claude-code') },
          { tool: /^Write$/, input: { file_path: path.join(world.checkout, PAYMENTS_FILE), content: PAYMENTS_CODE } },
          {
            tool: /^Bash$/,
            input: {
              command: `git add ${PAYMENTS_FILE} && git commit -q -m "Add the payments module"`,
              description: 'Commit the payments module',
            },
          },
        ],
        final: 'Added the payments module, recorded the refund decision and committed.',
      },
      args: [
        '-p',
        PROMPT,
        '--permission-mode',
        'acceptEdits',
        '--allowedTools',
        'mcp__doco__doco_capture',
        'Bash(git add:*)',
        'Bash(git commit:*)',
        '--output-format',
        'stream-json',
        '--verbose',
      ],
      env: {
        ANTHROPIC_BASE_URL: world.modelUrl,
        ANTHROPIC_API_KEY: 'fake-key',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_AUTOUPDATER: '1',
      },
    };
  },
  (get) => {
    it('ends the commit it makes with a Doco-Brief trailer', () => {
      const { world, run } = get();
      const message = world.lastCommitMessage();
      expect(message, describeRun(run)).toContain('Add the payments module');
      expect(message).toMatch(/^Doco-Brief: http:\/\/127\.0\.0\.1:\d+\/\S+$/m);
    });
  },
);
