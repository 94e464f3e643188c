import { spawn, spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { ListeningPort, TaskSummary } from '../../../source/store/domain.js'
import { scanLsof, scanProc } from '../../../source/tasks/port-scan.js'
import { createPortWatch, type WatchedJob } from '../../../source/tasks/port-watch.js'
import { createTaskManager, type TaskManager } from '../../../source/tasks/task-manager.js'
import { killGroupQuietly, makeTempDir, waitFor } from './helpers.js'

/** A real dev server: listens on a free loopback port and prints it as a dev server does. */
const SERVER = `require('http').createServer().listen(0, '127.0.0.1', function () { console.log('Listening on http://127.0.0.1:' + this.address().port + '/') })`
const serverCommand = (prefix = '') => `${prefix}'${process.execPath}' -e "${SERVER}"`

/** Whether this host lets an unprivileged user make a network namespace (the sandbox's `--unshare-net`). */
const canUnshareNet = spawnSync('unshare', ['-rn', 'true']).status === 0
const hasLsof = spawnSync('lsof', ['-v']).error === undefined

let dir: string
let cleanup: () => Promise<void>
let managers: TaskManager[]

beforeEach(async () => {
  ;({ dir, cleanup } = await makeTempDir())
  managers = []
})

afterEach(async () => {
  await Promise.all(managers.map((manager) => manager.dispose()))
  await cleanup()
})

function watched(): { tasks: TaskManager; latest: Map<string, TaskSummary> } {
  const latest = new Map<string, TaskSummary>()
  const tasks = createTaskManager({
    outputsDir: join(dir, 'outputs'),
    onUpdate: (summary) => latest.set(summary.id, summary),
    updateThrottleMs: 0,
    portPollMs: 50,
  })
  managers.push(tasks)
  return { tasks, latest }
}

/** The port a job printed, once it has. */
async function printedPort(tasks: TaskManager, id: string): Promise<number> {
  let port = 0
  await waitFor(() => {
    port = Number(/127\.0\.0\.1:(\d+)/.exec(tasks.tail(id))?.[1] ?? 0)
    return port > 0
  }, `${id} to print its port`)
  return port
}

describe.runIf(process.platform === 'linux')('ports of a real background job (Linux /proc)', () => {
  it('finds the port a dev server listens on, with the URL it printed', async () => {
    const { tasks, latest } = watched()
    const job = tasks.launch({ command: serverCommand(), cwd: dir })
    const port = await printedPort(tasks, job.id)
    await waitFor(() => (latest.get(job.id)?.ports?.length ?? 0) > 0, 'the port to be seen')
    const expected: ListeningPort = {
      address: '127.0.0.1',
      port,
      reachable: true,
      url: `http://127.0.0.1:${port}/`,
      seen: 'socket',
    }
    expect(latest.get(job.id)?.ports).toEqual([expected])
    expect(tasks.get(job.id)?.ports).toEqual([expected])
    // Ended: it listens on nothing.
    await tasks.stop(job.id)
    expect(tasks.get(job.id)?.ports).toBeUndefined()
    expect(latest.get(job.id)?.ports).toBeUndefined()
  })

  it("sees a server the job's shell started in the background (a child, not the leader)", async () => {
    const { tasks, latest } = watched()
    const job = tasks.launch({ command: `${serverCommand()} & wait`, cwd: dir })
    const port = await printedPort(tasks, job.id)
    await waitFor(() => latest.get(job.id)?.ports?.[0]?.port === port, "the child's port")
  })

  it('takes no port from output alone: a printed URL with no socket behind it is not offered', async () => {
    const { tasks, latest } = watched()
    const other = spawn(process.execPath, ['-e', SERVER], {
      detached: true,
      stdio: ['ignore', 'pipe', 'ignore'],
    })
    try {
      // The port of a process outside the job, printed by the job.
      const port = await new Promise<number>((resolve) =>
        other.stdout?.once('data', (chunk: Buffer) => resolve(Number(/:(\d+)\//.exec(String(chunk))?.[1]))),
      )
      const job = tasks.launch({
        command: `echo 'Listening on http://127.0.0.1:${port}/'; ${serverCommand()}`,
        cwd: dir,
      })
      const own = await waitFor(() => (latest.get(job.id)?.ports?.length ?? 0) > 0, 'its own port').then(
        () => latest.get(job.id)?.ports ?? [],
      )
      expect(own.map((p) => p.port)).not.toContain(port)
      expect(own).toHaveLength(1)
    } finally {
      killGroupQuietly(other.pid)
    }
  })

  it.runIf(canUnshareNet)(
    'marks a port inside a network namespace of its own (the sandbox without network) as not reachable',
    async () => {
      const { tasks, latest } = watched()
      const job = tasks.launch({ command: serverCommand('unshare -rn '), cwd: dir })
      const port = await printedPort(tasks, job.id)
      await waitFor(() => (latest.get(job.id)?.ports?.length ?? 0) > 0, 'the namespaced port')
      expect(latest.get(job.id)?.ports).toEqual([
        { address: '127.0.0.1', port, reachable: false, seen: 'socket' },
      ])
    },
  )

  it('scanProc lists nothing for a group without processes, and null without a proc mount', () => {
    expect(scanProc([2 ** 22 + 12345])).toEqual(new Map([[2 ** 22 + 12345, []]]))
    expect(scanProc([1], { proc: join(dir, 'no-proc') })).toBeNull()
  })
})

describe.runIf(hasLsof)('the lsof scanner (macOS; run wherever lsof is installed)', () => {
  it('finds a real server by its process group', async () => {
    const server = spawn(process.execPath, ['-e', SERVER], {
      detached: true,
      stdio: ['ignore', 'pipe', 'ignore'],
    })
    try {
      const port = await new Promise<number>((resolve) =>
        server.stdout?.once('data', (chunk: Buffer) => resolve(Number(/:(\d+)\//.exec(String(chunk))?.[1]))),
      )
      const pgid = server.pid as number
      const found = await scanLsof([pgid])
      expect(found?.get(pgid)).toEqual([{ address: '127.0.0.1', port, reachable: true }])
    } finally {
      killGroupQuietly(server.pid)
    }
  })

  it('answers null when lsof cannot run', async () => {
    expect(await scanLsof([1], join(dir, 'no-lsof'))).toBeNull()
  })
})

describe('createPortWatch', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it('polls only while jobs run: no timer before the first job or after the last', async () => {
    vi.useFakeTimers()
    let running: WatchedJob[] = []
    const scans: number[][] = []
    const got: ListeningPort[][] = []
    const watch = createPortWatch({
      intervalMs: 1000,
      jobs: () => running,
      scan: async (pgids) => {
        scans.push([...pgids])
        return new Map(pgids.map((pgid) => [pgid, [{ address: '0.0.0.0', port: 3000, reachable: true }]]))
      },
    })
    expect(vi.getTimerCount()).toBe(0)
    running = [
      {
        id: 'b1',
        pgid: 42,
        outputSince: (cursor) => ({
          text: cursor === 0 ? 'ready on http://localhost:3000/app\n' : '',
          next: 30,
        }),
        setPorts: (ports) => got.push(ports),
      },
    ]
    watch.kick()
    watch.kick()
    expect(vi.getTimerCount()).toBe(1)
    await vi.advanceTimersByTimeAsync(1000)
    expect(scans).toEqual([[42]])
    expect(got.at(-1)).toEqual([
      { address: '0.0.0.0', port: 3000, reachable: true, url: 'http://localhost:3000/app', seen: 'socket' },
    ])
    await vi.advanceTimersByTimeAsync(1000)
    expect(scans).toHaveLength(2)
    // The printed URL is remembered after the output moved on.
    expect(got.at(-1)?.[0]?.url).toBe('http://localhost:3000/app')
    running = []
    await vi.advanceTimersByTimeAsync(1000)
    expect(scans).toHaveLength(2)
    expect(vi.getTimerCount()).toBe(0)
    watch.dispose()
  })

  it('a failing scan counts as "sockets cannot be listed": printed ports are shown', async () => {
    vi.useFakeTimers()
    const got: ListeningPort[][] = []
    const watch = createPortWatch({
      intervalMs: 10,
      jobs: () => [
        {
          id: 'b1',
          pgid: 7,
          outputSince: () => ({ text: 'Listening on :8080', next: 18 }),
          setPorts: (ports) => got.push(ports),
        },
      ],
      scan: () => Promise.reject(new Error('boom')),
    })
    watch.kick()
    await vi.advanceTimersByTimeAsync(10)
    expect(got[0]).toEqual([
      { address: 'localhost', port: 8080, reachable: true, url: 'http://localhost:8080/', seen: 'output' },
    ])
    watch.dispose()
    expect(vi.getTimerCount()).toBe(0)
  })

  it('keeps polling after a look that threw', async () => {
    vi.useFakeTimers()
    let looks = 0
    const got: ListeningPort[][] = []
    const watch = createPortWatch({
      intervalMs: 10,
      jobs: () => [
        {
          id: 'b1',
          pgid: 7,
          outputSince: () => {
            looks++
            if (looks === 1) throw new Error('the log went away')
            return { text: '', next: 0 }
          },
          setPorts: (ports) => got.push(ports),
        },
      ],
      scan: async () => new Map([[7, [{ address: '127.0.0.1', port: 9000, reachable: true }]]]),
    })
    watch.kick()
    await vi.advanceTimersByTimeAsync(10)
    expect(got).toEqual([])
    await vi.advanceTimersByTimeAsync(10)
    expect(got[0]?.[0]?.port).toBe(9000)
    watch.dispose()
  })
})
