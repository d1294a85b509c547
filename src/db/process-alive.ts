// Whether a process id names a running process. A zombie (exited, not yet reaped by its parent)
// is not running, though a signal-0 probe says it exists: a postmaster killed after the process
// that started it is gone is reparented to PID 1, and in a container whose PID 1 is no init it
// can stay a zombie indefinitely.
import { readFileSync } from 'node:fs';

interface ProcStat {
  state: string;
  ppid: number;
}

/** On Linux, from /proc/<pid>/stat (state and parent follow the parenthesised command name); elsewhere undefined. */
function procStat(pid: number): ProcStat | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { state: state ?? '', ppid: Number(ppid) };
}

const exists = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

export function isZombie(pid: number): boolean {
  const state = procStat(pid)?.state;
  return state === 'Z' || state === 'X';
}

export function processRunning(pid: number): boolean {
  return exists(pid) && !isZombie(pid);
}

/**
 * Whether a process we stopped is gone for good: reaped, or a zombie another process (PID 1)
 * will reap. A child of this process is reaped by Node itself, so it is waited for: once this
 * process exits, nobody could tell its zombie from a live process.
 */
export function processGone(pid: number): boolean {
  if (!exists(pid)) return true;
  const stat = procStat(pid);
  return stat !== undefined && (stat.state === 'Z' || stat.state === 'X') && stat.ppid !== process.pid;
}
