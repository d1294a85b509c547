// A Claude Code session's hook calls against the test app, as the agent's HTTP hooks send them:
// writes as the workspace's person, session start and prompts with its read token, each answer's
// additionalContext as the agent reads it.
import { expect } from 'vitest';
import type { makeApp, TestWorkspace } from './app.js';

export function hookSession(api: ReturnType<typeof makeApp>, ws: TestWorkspace) {
  const post = async (p: string, body: unknown) => {
    const res = await api.call('POST', `/api/v1${p}`, ws.writeToken, body);
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
    return res.body;
  };
  const context = async (event: string, body: Record<string, unknown>) => {
    const res = await api.call('POST', `/api/v1/hooks/claude-code/${event}`, ws.readToken, { transcript_path: null, cwd: '/tmp', ...body });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return (res.body.hookSpecificOutput?.additionalContext ?? '') as string;
  };
  const start = (session: string) => context('session-start', { session_id: session, hook_event_name: 'SessionStart', source: 'startup' });
  const prompt = (session: string, text: string) =>
    context('prompt', { session_id: session, hook_event_name: 'UserPromptSubmit', prompt: text });
  return { post, context, start, prompt };
}
