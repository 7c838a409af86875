// Preloaded with `node --import` into a measured process: at exit, writes the process's CPU
// time and peak resident memory (getrusage) as JSON to the file named by BENCH_USAGE_FILE.
import { writeFileSync } from 'node:fs';

process.on('exit', () => {
  const usage = process.resourceUsage();
  writeFileSync(
    process.env.BENCH_USAGE_FILE,
    JSON.stringify({
      cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000,
      maxRssKb: usage.maxRSS,
    }),
  );
});
