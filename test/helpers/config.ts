// What loadConfig refuses in an environment: its one line per bad variable, or none.
import { ConfigError, loadConfig } from '../../src/config/environment.js';

export function configProblems(env: NodeJS.ProcessEnv): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}
