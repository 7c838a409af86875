// What every benchmark prints beside its figures: the machine and its load.
import { execFileSync } from 'node:child_process';
import os from 'node:os';

/** `2 x AMD EPYC ..., 24 GiB, node v20.20.2` */
export function machineSummary() {
  const cpus = os.cpus();
  return `${cpus.length} x ${cpus[0]?.model ?? 'unknown CPU'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}`;
}

/** What `uptime` prints, or the load averages where it is missing. */
export function currentUptime() {
  try {
    return execFileSync('uptime', { encoding: 'utf8' }).trim();
  } catch {
    return `load average: ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(', ')}`;
  }
}
