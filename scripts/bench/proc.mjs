// Reads a process's CPU time and memory from /proc (Linux only), for the benchmark sections.
import { execFileSync } from 'node:child_process'
import { readFileSync, readlinkSync } from 'node:fs'

let ticksPerSecond
function clockTicks() {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100
    } catch {
      ticksPerSecond = 100
    }
  }
  return ticksPerSecond
}

/** CPU time (user + system, all threads, ms) the process used so far; 10 ms resolution on most kernels. */
export function cpuMs(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  // Fields after the command name (which may contain spaces) start at field 3 (state).
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  const utime = Number(fields[11])
  const stime = Number(fields[12])
  return ((utime + stime) * 1000) / clockTicks()
}

/** CPU time of the main thread only (ns resolution), where JavaScript and rendering run. */
export function mainThreadCpuMs(pid) {
  const [onCpuNs] = readFileSync(`/proc/${pid}/schedstat`, 'utf8').trim().split(' ')
  return Number(onCpuNs) / 1e6
}

/** Resident set size in MB (VmRSS), or NaN once the process is gone. */
export function rssMb(pid) {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return match ? Number(match[1]) / 1024 : Number.NaN
  } catch {
    return Number.NaN
  }
}

/** The executable of a running process (to check a pty child is node itself, not a wrapper). */
export function exeOf(pid) {
  try {
    return readlinkSync(`/proc/${pid}/exe`)
  } catch {
    return ''
  }
}

/** How many times the main thread was scheduled onto a CPU so far (its wake-ups, roughly). */
export function mainThreadRuns(pid) {
  return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').trim().split(' ')[2])
}
