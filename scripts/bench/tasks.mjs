// docs/performance.md: a background job printing a lot must not grow the agent's memory (bounded ring buffer + log
// file, docs/tools.md#background-jobs). Headless `-p --yolo`: the scripted model starts the job with Bash run_in_background,
// then waits for it with a blocking TaskOutput; the agent's RSS is sampled every 50 ms meanwhile.
import { spawn } from 'node:child_process'
import { performance } from 'node:perf_hooks'
import { median } from './measure.mjs'
import { cpuMs, rssMb } from './proc.mjs'
import { makeSandbox } from './sandbox.mjs'
import { startStreamServer } from './stream-server.mjs'

const BYTES = 1_000_000_000 // the budget says 1 GB; `yes` writes it to the job's log in ~1.5 s here
const CONTROL_BYTES = 1_000
const SAMPLE_MS = 50
const LIMIT_MS = 50_000

/** One headless run in a fresh sandbox, removed right after (the job's log file is as big as its output). */
async function runJob(ctx, bytes) {
  const box = await makeSandbox()
  ctx.defer(() => box.cleanup())
  try {
    return await measureJob(ctx, bytes, box)
  } finally {
    await box.cleanup()
  }
}

/** A headless run whose background job prints `bytes`; RSS marks at each request and 50 ms samples. */
async function measureJob(ctx, bytes, box) {
  let pid = 0
  const marks = [] // per request: { at, rss, cpu }
  const server = await startStreamServer({
    reply: (index) => {
      if (index === 0) {
        return {
          toolCalls: [
            {
              name: 'Bash',
              arguments: {
                command: `yes | head -c ${bytes}`,
                description: 'Print a lot',
                run_in_background: true,
              },
            },
          ],
        }
      }
      if (index === 1)
        return {
          toolCalls: [{ name: 'TaskOutput', arguments: { task_id: 'b1', block: true, timeout: 600_000 } }],
        }
      return { text: 'done' }
    },
    onRequest: () => {
      if (pid) marks.push({ at: performance.now(), rss: rssMb(pid), cpu: cpuMs(pid) })
    },
  })
  ctx.defer(() => server.close())

  const child = spawn(
    process.execPath,
    [ctx.cli, '-p', 'make some noise', '--yolo', '--base-url', server.baseUrl, '--model', 'test-model'],
    { cwd: box.work, env: box.env, stdio: ['ignore', 'pipe', 'pipe'] },
  )
  pid = child.pid
  ctx.defer(() => {
    if (child.exitCode === null) child.kill('SIGKILL')
  })
  let stderr = ''
  child.stderr.on('data', (d) => {
    stderr += d
  })
  child.stdout.resume()
  const samples = []
  const sampler = setInterval(() => samples.push({ at: performance.now(), rss: rssMb(pid) }), SAMPLE_MS)
  const exit = await new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      resolve({ code: null, timedOut: true })
    }, LIMIT_MS)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, timedOut: false })
    })
  })
  clearInterval(sampler)
  if (exit.timedOut) throw new Error(`the run took over ${LIMIT_MS / 1000} s`)
  if (exit.code !== 0) throw new Error(`exit ${exit.code}: ${stderr.slice(0, 300)}`)
  if (marks.length < 3) throw new Error(`expected 3 requests, got ${marks.length}`)

  // The TaskOutput result the model got must say the job completed, or nothing was measured.
  const messages = server.requests[2].body.messages ?? []
  const result = String(messages.at(-1)?.content ?? '')
  if (!/completed/.test(result))
    throw new Error(`TaskOutput did not report completion: ${result.slice(0, 200)}`)

  const [launched, waiting, done] = marks
  const during = samples.filter((s) => s.at >= launched.at && s.at <= done.at && Number.isFinite(s.rss))
  const peak = Math.max(waiting.rss, done.rss, ...during.map((s) => s.rss))
  return {
    startRss: launched.rss,
    growth: peak - launched.rss,
    samples: during.length,
    jobSeconds: (done.at - waiting.at) / 1000,
    cpuSeconds: (done.cpu - waiting.cpu) / 1000,
  }
}

export async function taskBuffer(ctx) {
  const runs = 3
  // Control: the same two tool calls with a job printing 1 KB, for the fixed cost of the steps themselves
  // (the first Bash/TaskOutput call loads and allocates things whatever the job prints).
  const control = []
  const big = []
  for (let i = 0; i < runs; i++) {
    control.push(await runJob(ctx, CONTROL_BYTES))
    big.push(await runJob(ctx, BYTES))
  }
  const pick = (list, key) => median(list.map((r) => r[key]))
  const mb = BYTES / 1e6
  const seconds = pick(big, 'jobSeconds')
  ctx.report(`background job printing ${mb} MB: time (median of ${runs})`, seconds, {
    unit: 's',
    digits: 2,
    note: `${(mb / seconds).toFixed(0)} MB/s; agent CPU ${pick(big, 'cpuSeconds').toFixed(2)} s`,
  })
  ctx.report('background job: agent RSS before the job', pick(big, 'startRss'), { unit: 'MB' })
  ctx.report(`background job ${mb} MB: peak RSS growth`, pick(big, 'growth'), {
    unit: 'MB',
    max: 20,
    budget: '< 20 MB',
  })
  ctx.report(
    `background job ${CONTROL_BYTES / 1000} KB (control): peak RSS growth`,
    pick(control, 'growth'),
    {
      unit: 'MB',
    },
  )
  ctx.report(`background job ${mb} MB: growth minus control`, pick(big, 'growth') - pick(control, 'growth'), {
    unit: 'MB',
    max: 20,
    budget: '< 20 MB',
  })
}
