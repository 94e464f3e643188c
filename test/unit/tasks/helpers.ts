import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** A fresh temp dir and its removal. */
export async function makeTempDir(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'agent-tui-tasks-'))
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) }
}

/**
 * True once `pid` no longer runs: `kill(pid, 0)` fails with ESRCH, or the process is a zombie. Zombies
 * count as gone because a killed orphan is reparented to init, and the init of some containers (this
 * sandbox's included) never reaps, so ESRCH alone would never arrive.
 */
export function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH'
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')
  } catch {
    return true
  }
}

/** Polls `condition` until it holds; fails with `what` after a generous deadline. */
export async function waitFor(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** Waits until `file` holds a positive integer (a pid written by a test command) and returns it. */
export async function readPidFile(file: string): Promise<number> {
  let pid = 0
  await waitFor(async () => {
    const text = await readFile(file, 'utf8').catch(() => '')
    pid = Number(text.trim())
    return text.endsWith('\n') && Number.isInteger(pid) && pid > 0
  }, `a pid in ${file}`)
  return pid
}

/** Kills a process group if it still exists; for test clean-up only. */
export function killGroupQuietly(pgid: number | undefined): void {
  if (pgid === undefined) return
  try {
    process.kill(-pgid, 'SIGKILL')
  } catch {
    // already gone
  }
}
