import { readFileSync } from 'node:fs'
import { mkdtemp, readFile, realpath, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { runHookCommand } from '../../../source/user-hooks/run-command.js'
import { isProcessAlive, pollUntil } from '../../../source/tasks/process-group.js'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agent-tui-hook-run-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

const base = () => ({ input: '{"hook_event_name":"Stop"}', cwd: dir, env: process.env, timeoutMs: 10_000 })
const pids = async (file: string) =>
  (await readFile(join(dir, file), 'utf8')).split(/\s+/).filter(Boolean).map(Number)

describe('runHookCommand (real processes)', () => {
  it('gives the event on stdin and returns exit code, stdout and stderr', async () => {
    const r = await runHookCommand({ ...base(), command: 'cat; echo " done"; echo problem >&2; exit 3' })
    expect(r).toMatchObject({
      exitCode: 3,
      stdout: '{"hook_event_name":"Stop"} done\n',
      stderr: 'problem\n',
      timedOut: false,
      aborted: false,
    })
  })

  it('runs in the given directory with the given environment', async () => {
    const r = await runHookCommand({
      ...base(),
      env: { ...process.env, CLAUDE_PROJECT_DIR: '/somewhere' },
      command: 'pwd -P; echo "$CLAUDE_PROJECT_DIR"',
    })
    expect(r.stdout.split('\n').slice(0, 2)).toEqual([await realpath(dir), '/somewhere'])
  })

  it('a hook that hangs is stopped at its timeout, with every process of its group', async () => {
    const r = await runHookCommand({
      ...base(),
      timeoutMs: 300,
      killGraceMs: 100,
      // A child that ignores SIGTERM, and the hook itself waiting forever.
      command: `(trap '' TERM; sleep 60) & echo $! > ${dir}/pids; echo $$ >> ${dir}/pids; sleep 60`,
    })
    expect(r.timedOut).toBe(true)
    expect(r.exitCode).toBeNull()
    const spawned = await pids('pids')
    expect(spawned).toHaveLength(2)
    expect(await pollUntil(() => spawned.every((pid) => !isProcessAlive(pid)), { timeoutMs: 2000 })).toBe(
      true,
    )
  })

  it('what a hook leaves running in its group is killed when it exits', async () => {
    const r = await runHookCommand({
      ...base(),
      command: `sleep 60 >/dev/null 2>&1 & echo $! > ${dir}/pids; exit 0`,
    })
    expect(r.exitCode).toBe(0)
    const [left] = await pids('pids')
    expect(await pollUntil(() => !isProcessAlive(left as number), { timeoutMs: 2000 })).toBe(true)
  })

  it('an abort stops the hook and its group at once', async () => {
    const controller = new AbortController()
    const running = runHookCommand({
      ...base(),
      signal: controller.signal,
      command: `echo $$ > ${dir}/pids; sleep 60`,
    })
    const written = () => {
      try {
        return readFileSync(join(dir, 'pids'), 'utf8').trim() !== ''
      } catch {
        return false
      }
    }
    await pollUntil(written, { timeoutMs: 5000 })
    controller.abort()
    const r = await running
    expect(r.aborted).toBe(true)
    const [pid] = await pids('pids')
    expect(await pollUntil(() => !isProcessAlive(pid as number), { timeoutMs: 2000 })).toBe(true)
  })

  it('a hook that does not read stdin, or exits at once, is fine', async () => {
    const r = await runHookCommand({ ...base(), input: 'x'.repeat(1 << 20), command: 'exit 0' })
    expect(r.exitCode).toBe(0)
  })

  it('tracks the group with its owner while it runs', async () => {
    const tracked: number[] = []
    let released = 0
    await runHookCommand({
      ...base(),
      command: 'true',
      owner: {
        track: (group) => {
          tracked.push(group.pid)
          expect(group.kind).toBe('foreground')
          return () => {
            released++
          }
        },
      },
    })
    expect(tracked).toHaveLength(1)
    expect(released).toBe(1)
  })
})
