// Whether a process id names a running process. A zombie (exited, not yet reaped by its parent)
// is not running, though a signal-0 probe says it exists: a postmaster killed after the process
// that started it is gone is reparented to PID 1, and in a container whose PID 1 is no init it
// can stay a zombie indefinitely.
import { readFileSync } from 'node:fs';

export function processRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return !isZombie(pid);
}

/** On Linux, from /proc/<pid>/stat (the state follows the parenthesised command name); elsewhere, never. */
export function isZombie(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false;
  }
  const state = stat.charAt(stat.lastIndexOf(')') + 2);
  return state === 'Z' || state === 'X';
}
