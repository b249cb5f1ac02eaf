// What Linux's /proc says about a process and the machine: resident set, CPU time, descendants,
// command line.
import fs from 'node:fs';

/** VmRSS and friends of `pid`, in kB, from /proc/<pid>/status. */
export function procStatus(pid) {
  const text = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN);
  return { rssKb: field('VmRSS'), hwmKb: field('VmHWM'), anonKb: field('RssAnon'), fileKb: field('RssFile'), shmemKb: field('RssShmem') };
}

/** CPU seconds (user + system) the process has used, from /proc/<pid>/stat. */
export function cpuSeconds(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100 on Linux)
}

/** Busy and total CPU seconds of the whole machine so far, from /proc/stat (idle and iowait are not busy). */
export function machineCpu() {
  const [, ...fields] = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  const ticks = fields.map(Number);
  const total = ticks.slice(0, 8).reduce((s, t) => s + t, 0);
  const idle = ticks[3] + ticks[4];
  return { busyS: (total - idle) / 100, totalS: total / 100 };
}

/** Every process below `pid`, with its command line and RSS. */
export function descendants(pid) {
  const parents = new Map();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(Number(entry), ppid);
    } catch {
      // Gone meanwhile.
    }
  }
  const found = [];
  const walk = (p) => {
    for (const [child, parent] of parents) {
      if (parent !== p) continue;
      try {
        found.push({ pid: child, cmd: commandLine(child), rssKb: procStatus(child).rssKb });
      } catch {
        // Gone meanwhile.
      }
      walk(child);
    }
  };
  walk(pid);
  return found;
}

/** The process's arguments, the preload's long `data:` URL shortened. */
export function commandLine(pid) {
  return fs
    .readFileSync(`/proc/${pid}/cmdline`, 'utf8')
    .split('\0')
    .filter(Boolean)
    .map((arg) => (arg.length > 60 ? `${arg.slice(0, 40)}…` : arg))
    .join(' ');
}
