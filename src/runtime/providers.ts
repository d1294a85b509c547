// Picks each provider port's implementation from the configuration: hosted when its key is
// set, the local default otherwise.
import type { Config } from '../config.js';
import { anthropicJudge, noJudge, type PolicyJudge } from '../providers/judge.js';

export function makeJudge(config: Config): PolicyJudge {
  return config.anthropic ? anthropicJudge(config.anthropic) : noJudge;
}
