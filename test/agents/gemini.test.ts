// Gemini CLI headless (`gemini -p`) with Doco's hooks and MCP server as `doco hooks install
// --agent gemini` writes them in .gemini/settings.json, against the fake Gemini API
// (GOOGLE_GEMINI_BASE_URL). Project hooks run only in a trusted folder: the suite starts Gemini
// with GEMINI_CLI_TRUST_WORKSPACE=true, as install's note says.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { captureInput, describeAgent, PAYMENTS_CODE, PAYMENTS_FILE } from './scenario.js';
import { PROMPT } from './world.js';

describeAgent('gemini', (world) => {
  // User settings: API-key auth, as `gemini` asks for on first start.
  mkdirSync(path.join(world.agentHome, '.gemini'), { recursive: true });
  writeFileSync(
    path.join(world.agentHome, '.gemini', 'settings.json'),
    `${JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }, null, 2)}\n`,
  );
  return {
    script: {
      steps: [
        { tool: /doco_capture$/, input: captureInput('gemini') },
        { tool: /^write_file$/, input: { file_path: path.join(world.checkout, PAYMENTS_FILE), content: PAYMENTS_CODE } },
      ],
      final: 'Added the payments module and recorded the refund decision.',
    },
    // Headless, Gemini offers no tool that would ask for confirmation: allow Doco's capture tool.
    args: ['-p', PROMPT, '--approval-mode', 'auto_edit', '--allowed-tools', 'mcp_doco_doco_capture', '-o', 'stream-json'],
    env: {
      GOOGLE_GEMINI_BASE_URL: world.modelUrl,
      GEMINI_API_KEY: 'fake-key',
      GEMINI_CLI_TRUST_WORKSPACE: 'true',
    },
  };
});
