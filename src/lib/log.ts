// A small leveled logger to stderr (stdout is kept for command output). A message names what
// others wrote (file names, pack paths, webhook fields): its control characters are dropped, so
// no escape sequence reaches the operator's terminal.
import { plainText } from './plain-text.js';
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

export interface Log {
  debug(msg: string): void;
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
}

const ORDER: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3, silent: 4 };

export function makeLog(level: LogLevel, write: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): Log {
  const at = (l: Exclude<LogLevel, 'silent'>) => (msg: string) => {
    if (ORDER[l] >= ORDER[level]) write(`${new Date().toISOString()} ${l.padEnd(5)} ${plainText(msg)}`);
  };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
