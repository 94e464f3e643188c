import { spawn } from 'node:child_process'
import { readFileSync, statSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createTaskManager, type TaskManager } from '../../../source/tasks/task-manager.js'
import { killGroupQuietly, makeTempDir, waitFor } from './helpers.js'

const LONG = 60_000
const CAP = 64 * 1024
const MARKER =
  /\n\[agent-tui: (\d+) bytes of output cut here; logs are capped at 64 KiB, keeping the first 8 KiB and the latest output\]\n/

let dir: string
let cleanup: () => Promise<void>
let tasks: TaskManager
const strays: number[] = []

beforeEach(async () => {
  ;({ dir, cleanup } = await makeTempDir())
  // Small bounds so a test prints a megabyte, not gigabytes; the cap must hold memory's head and tail.
  tasks = createTaskManager({
    outputsDir: join(dir, 'outputs'),
    logCapBytes: CAP,
    buffer: { headBytes: 1024, tailBytes: 4096 },
  })
})
afterEach(async () => {
  await tasks.dispose()
  for (const pid of strays.splice(0)) killGroupQuietly(pid)
  await cleanup()
})

/** `seq first last` as the job prints it. */
const seq = (first: number, last: number) =>
  Array.from({ length: last - first + 1 }, (_, i) => `${first + i}\n`).join('')

/** Splits a capped log into head, cut count and tail, and checks them against the full output. */
function expectCappedLog(logPath: string, full: string): number {
  const log = readFileSync(logPath, 'utf8')
  expect(statSync(logPath).size).toBeLessThanOrEqual(CAP)
  const match = MARKER.exec(log)
  expect(match, 'the log has a cut marker').not.toBeNull()
  const cut = Number(match?.[1])
  const head = log.slice(0, match?.index)
  const tail = log.slice((match?.index ?? 0) + (match?.[0].length ?? 0))
  expect(full.startsWith(head)).toBe(true)
  expect(full.endsWith(tail)).toBe(true)
  expect(head.length).toBe(8 * 1024)
  expect(head.length + cut + tail.length).toBe(full.length)
  return cut
}

describe('background job logs are capped on disk', () => {
  it('cuts the middle of a launched job log, also while the job runs, and TaskOutput shows both ends', async () => {
    const full = seq(1, 100_000) + seq(100_001, 200_000)
    const task = tasks.launch({
      command: `seq 1 100000; while [ ! -f go ]; do sleep 0.02; done; seq 100001 200000`,
      cwd: dir,
    })
    const firstPart = Buffer.byteLength(seq(1, 100_000))
    // Each summary reads the log and cuts it back under the cap.
    await waitFor(() => (tasks.get('b1')?.outputBytes ?? 0) >= firstPart, 'the first part of the output')
    expect(statSync(task.logPath).size).toBeLessThanOrEqual(CAP)
    await writeFile(join(dir, 'go'), '')
    const result = await tasks.read('b1', { block: true, timeoutMs: LONG })
    expect(result.status).toBe('completed')
    const cut = expectCappedLog(task.logPath, full)
    expect(result.output.startsWith('1\n2\n3\n')).toBe(true)
    expect(result.output.endsWith('199999\n200000\n')).toBe(true)
    expect(result.output).toContain(
      `${task.logPath} keeps the first 8 KiB and the latest output (logs are capped at 64 KiB; ${cut} bytes were cut from its middle)`,
    )
    expect(tasks.tail('b1', 20)).toBe('199998\n199999\n200000\n'.slice(-20))
    expect(tasks.get('b1')?.outputBytes).toBe(full.length)
  })

  it('cuts the log of an adopted foreground command, which it writes itself', async () => {
    const child = spawn('bash', ['-c', 'while [ ! -f go ]; do sleep 0.02; done; seq 1 200000'], {
      cwd: dir,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    if (child.pid !== undefined) strays.push(child.pid)
    const task = tasks.adopt({ child, command: 'seq', cwd: dir, initialOutput: 'before\n' })
    await writeFile(join(dir, 'go'), '')
    const result = await tasks.read('b1', { block: true, timeoutMs: LONG })
    expect(result.status).toBe('completed')
    expectCappedLog(task.logPath, `before\n${seq(1, 200_000)}`)
    expect(result.output.endsWith('200000\n')).toBe(true)
  })

  it('refuses a cap smaller than what memory keeps of each job', () => {
    expect(() =>
      createTaskManager({ outputsDir: dir, logCapBytes: 8192, buffer: { headBytes: 4096, tailBytes: 4096 } }),
    ).toThrow(/keeps less than the in-memory head \(4096\) and tail \(4096\)/)
  })
})
