import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** The variable every process a test run starts inherits; its value names the run. */
export const RUN_MARKER = 'COVGATE_TEST_RUN';

/** One process of the machine, as Linux's /proc shows it. */
export interface ProcessInfo {
  pid: number;
  ppid: number;
  /** `R`, `S`, `Z` (exited, not yet reaped), ... */
  state: string;
  /** When it started, in clock ticks since boot: only compared with another process's. */
  startTicks: number;
  /** Its command line (its name in brackets when it has none, as ps prints kernel threads). */
  args: string[];
  /** The value of {@link RUN_MARKER} it was started with; undefined without one or unreadable. */
  runMarker: string | undefined;
  /** Its working folder (` (deleted)` at the end once removed); undefined when unreadable. */
  cwd: string | undefined;
}

/** Whether this machine has a /proc to read processes from (Linux). */
export function hasProcessTable(): boolean {
  try {
    readFileSync('/proc/self/stat');
    return true;
  } catch {
    return false;
  }
}

/** Reads one process from /proc; undefined when it ended meanwhile. */
export function readProcess(pid: number): ProcessInfo | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The name, in parentheses, may hold spaces and parentheses: the fields follow the last ')'.
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    return {
      pid,
      ppid: Number(fields[1]),
      state: fields[0] as string,
      startTicks: Number(fields[19]),
      args: args.length > 0 ? args : [`[${name}]`],
      runMarker: readRunMarker(pid),
      cwd: readCwd(pid),
    };
  } catch {
    return undefined;
  }
}

/** Every process of the machine; empty without /proc. */
export function listProcesses(): ProcessInfo[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  return entries
    .filter((entry) => /^\d+$/.test(entry))
    .map((entry) => readProcess(Number(entry)))
    .filter((info): info is ProcessInfo => info !== undefined);
}

function readRunMarker(pid: number): string | undefined {
  try {
    // Only the environment a process started with; another user's processes are unreadable.
    const prefix = `${RUN_MARKER}=`;
    const entry = readFileSync(`/proc/${pid}/environ`, 'utf8')
      .split('\0')
      .find((variable) => variable.startsWith(prefix));
    return entry?.slice(prefix.length);
  } catch {
    return undefined;
  }
}

function readCwd(pid: number): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return undefined;
  }
}
