/**
 * CPU accounting from /proc, because req/s alone mislead on a shared 2-core machine: one busy
 * neighbour halves a server's req/s. Two figures come out: how much of the machine other work
 * took while a case ran (is this figure worth reading?), and how much CPU the server spent per
 * request (a cost that other work barely changes). Linux only; elsewhere both are unknown.
 */
import { readFileSync } from 'node:fs';

/** /proc counts CPU time in USER_HZ ticks, 100 a second on every mainstream Linux build. */
const MS_PER_TICK = 10;

/** CPU time so far, in ticks: of every core together, and of each given process. */
export interface CpuSample {
  machineTotal: number;
  machineBusy: number;
  processes: Map<number | 'self', number>;
}

/** Reads the machine's CPU time and that of this process and `pids`; undefined without /proc. */
export function sampleCpu(pids: readonly number[]): CpuSample | undefined {
  try {
    // "cpu  user nice system idle iowait irq softirq steal ...": all cores together.
    const ticks = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
    const machineTotal = ticks.reduce((sum, t) => sum + t, 0);
    const machineBusy = machineTotal - ticks[3]! - ticks[4]!;
    const processes = new Map<number | 'self', number>([['self', processTicks('self')]]);
    for (const pid of pids) processes.set(pid, processTicks(pid));
    return { machineTotal, machineBusy, processes };
  } catch {
    return undefined;
  }
}

/** Percent of all cores' time between two samples spent by processes other than the sampled ones. */
export function otherLoadPercent(before: CpuSample | undefined, after: CpuSample | undefined): number | undefined {
  if (!before || !after) return undefined;
  const total = after.machineTotal - before.machineTotal;
  if (total <= 0) return undefined;
  let ours = 0;
  for (const [pid, ticks] of after.processes) ours += ticks - (before.processes.get(pid) ?? ticks);
  const others = after.machineBusy - before.machineBusy - ours;
  return Math.max(0, Math.round((others / total) * 100));
}

/** Milliseconds of CPU `pid` used between two samples. */
export function processCpuMs(before: CpuSample | undefined, after: CpuSample | undefined, pid: number): number | undefined {
  const start = before?.processes.get(pid);
  const end = after?.processes.get(pid);
  return start === undefined || end === undefined ? undefined : (end - start) * MS_PER_TICK;
}

/** utime + stime of one process (fields 14 and 15 of /proc/PID/stat, after the command name). */
function processTicks(pid: number | 'self'): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ', 2)[1]!.split(' ');
  return Number(fields[11]) + Number(fields[12]);
}
