// What a server process has used so far, read from Linux's /proc: the bench scripts' CPU and memory figures.
import { readFileSync } from 'node:fs';

/** CPU time (user + system) process `pid` has used so far, in microseconds (clock ticks of 10 ms: USER_HZ 100). */
export function cpuMicros(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/** Resident memory (VmRSS) of process `pid`, in MiB. */
export function rssMiB(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}
