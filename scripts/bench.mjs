// `npm run bench`: measures the budgets of docs/performance.md on this machine and prints medians next to the same
// run's `node -e 0` time. Benchmarks, not tests: nothing here fails the build. Sections can be picked by
// name: `node scripts/bench.mjs startup idle`.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { cpus, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startScriptedServer } from '../test/support/scripted-server.ts'
import { bashSandbox } from './bench/bash-sandbox.mjs'
import { checkpoint } from './bench/checkpoint.mjs'
import { claudeCollection } from './bench/claude-collection.mjs'
import { codeSearch } from './bench/code-search.mjs'
import { median, medianOf, timeCommand } from './bench/measure.mjs'
import { provenance } from './bench/provenance.mjs'
import { context } from './bench/context.mjs'
import { gitScan } from './bench/git-scan.mjs'
import { subagentRoundTrip } from './bench/subagents.mjs'
import { taskBuffer } from './bench/tasks.mjs'
import { tuiRoundTrip } from './bench/tui-round-trip.mjs'
import { vimEcho } from './bench/vim-echo.mjs'
import {
  earlierSession,
  idle,
  streamRender,
  transcriptScale,
  tuiFirstFrame,
  turnsGrowth,
  writeMcpSettings,
} from './bench/tui.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const cli = join(root, 'bin', 'agent-tui.cjs')
const node = process.execPath
const only = process.argv.slice(2)
/** A section that takes longer than this is reported as FAILED and its resources are released. */
const SECTION_LIMIT_MS = 120_000
const rows = []

function formatValue(value, unit, digits) {
  if (value === null || !Number.isFinite(value)) return '-'
  return `${value.toFixed(digits)}${unit ? ` ${unit}` : ''}`
}

/** Records and prints one measurement; `max` (or `min`) makes it a budget row (ok / OVER / UNDER). */
function report(name, value, { unit = 'ms', digits = 1, max, min, budget, note } = {}) {
  const verdict =
    value === null
      ? ''
      : max !== undefined
        ? value <= max
          ? 'ok'
          : 'OVER'
        : min !== undefined
          ? value >= min
            ? 'ok'
            : 'UNDER'
          : ''
  const row = {
    name,
    shown: formatValue(value, unit, digits),
    budget: budget ?? '',
    verdict,
    note: note ?? '',
  }
  rows.push(row)
  console.log(
    `${name.padEnd(60)} ${row.shown.padStart(11)}  ${row.budget.padEnd(15)} ${verdict.padEnd(4)} ${row.note}`,
  )
}

async function isolatedEnv() {
  const home = await mkdtemp(join(tmpdir(), 'agent-tui-bench-'))
  return {
    home,
    env: {
      ...process.env,
      HOME: home,
      XDG_CONFIG_HOME: join(home, 'config'),
      XDG_STATE_HOME: join(home, 'state'),
      OPENAI_API_KEY: '',
      OPENAI_BASE_URL: '',
      CI: '',
    },
  }
}

async function startup(ctx) {
  const runs = 15
  const baseline = await medianOf(runs, async () => (await timeCommand(node, ['-e', '0'])).ms)
  report('node -e 0 (baseline)', baseline)
  const { home, env } = await isolatedEnv()
  ctx.defer(() => rm(home, { recursive: true, force: true }))
  await timeCommand(node, [cli, '--version'], { env }) // warm the compile cache
  const version = await medianOf(runs, async () => (await timeCommand(node, [cli, '--version'], { env })).ms)
  report('agent-tui --version', version)

  const server = await startScriptedServer({ fallback: { text: 'ok', usage: { prompt: 10, completion: 1 } } })
  ctx.defer(() => server.close())
  const args = [cli, '-p', 'hello', '--base-url', server.baseUrl, '--model', 'test-model']
  await timeCommand(node, args, { env, cwd: home })
  const oneStep = await medianOf(runs, async () => {
    const r = await timeCommand(node, args, { env, cwd: home })
    if (r.code !== 0) throw new Error(`one-step run failed: ${r.stderr}`)
    return r.ms
  })
  report('agent-tui -p (one step, scripted server)', oneStep)

  // Headless waits for MCP servers before its only request (their tools go into its definitions): the
  // servers' own start-up is part of this run.
  const box = { work: home, env: { XDG_CONFIG_HOME: env.XDG_CONFIG_HOME } }
  await writeMcpSettings(box)
  const withMcp = await medianOf(5, async () => {
    const r = await timeCommand(node, args, { env, cwd: home })
    if (r.code !== 0) throw new Error(`one-step run with MCP servers failed: ${r.stderr}`)
    return r.ms
  })
  report('  … with two stdio MCP servers (it waits for them to start)', withMcp, {
    note: 'info: includes the servers starting',
  })
}

async function stepOverhead(ctx) {
  const steps = 60
  const { home, env } = await isolatedEnv()
  ctx.defer(() => rm(home, { recursive: true, force: true }))
  const work = join(home, 'work')
  await mkdir(work, { recursive: true })
  await mkdir(join(env.XDG_CONFIG_HOME, 'agent-tui'), { recursive: true })
  await writeFile(join(work, 'a.txt'), 'hello\n')
  // The default circuit breaker pauses a turn at 40 tool calls (a stop, in headless): raise it, in the
  // user's settings (an untrusted project's settings may only lower such limits).
  await writeFile(
    join(env.XDG_CONFIG_HOME, 'agent-tui', 'settings.json'),
    JSON.stringify({ circuitBreaker: { warnAt: 200, pauseAt: 300, hardStopAt: 400 } }),
  )
  let n = 0
  const server = await startScriptedServer({
    fallback: () =>
      ++n < steps
        ? {
            toolCalls: [{ name: 'Read', arguments: { file_path: 'a.txt' } }],
            usage: { prompt: 10, completion: 1 },
          }
        : { text: 'done', usage: { prompt: 10, completion: 1 } },
  })
  ctx.defer(() => server.close())
  const r = await timeCommand(
    node,
    [
      cli,
      '-p',
      'read a lot',
      '--base-url',
      server.baseUrl,
      '--model',
      'test-model',
      '--max-steps',
      String(steps + 5),
    ],
    { env, cwd: work },
  )
  if (r.code !== 0) throw new Error(`overhead run failed (${r.code}): ${r.stderr.trim()}`)
  const steady = server.requests.slice(1)
  // The loop's own time: from the endpoint's last response byte to the next request's arrival. It is
  // receiving and parsing the stream, the tool (a 1-line Read), the session log, building and sending
  // the next request, and the loopback in both directions. The endpoint's own handling is left out.
  const overhead = steady.map((q, i) => q.arrivedAt - (server.requests[i]?.respondedAt ?? q.arrivedAt))
  report(`per-step loop overhead headless (median of ${overhead.length} steps)`, median(overhead), {
    max: 5,
    budget: '≤ 5 ms',
  })
  const gaps = steady.map((q, i) => q.arrivedAt - (server.requests[i]?.arrivedAt ?? q.arrivedAt))
  report('  request to next request, scripted endpoint included', median(gaps), {
    note: 'info: adds the endpoint parsing the request and writing its reply',
  })
}

const sections = {
  startup,
  stepOverhead,
  subagentRoundTrip,
  tuiRoundTrip,
  tuiFirstFrame,
  vimEcho,
  streamRender,
  transcriptScale,
  idle,
  taskBuffer,
  turnsGrowth,
  checkpoint,
  context,
  sandbox: bashSandbox,
  gitScan,
  provenance,
  claudeCollection,
  codeSearch,
}
const unknown = only.filter((name) => !(name in sections))
if (unknown.length) {
  console.error(`unknown section(s): ${unknown.join(', ')}; known: ${Object.keys(sections).join(', ')}`)
  process.exit(2)
}

/** Runs one section with a time limit; whatever it registered with ctx.defer is released afterwards. */
async function runSection(name, run) {
  const deferred = []
  const ctx = { cli, report, defer: (fn) => deferred.push(fn) }
  let timer
  try {
    await Promise.race([
      run(ctx),
      new Promise((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`took over ${SECTION_LIMIT_MS / 1000} s`)),
          SECTION_LIMIT_MS,
        )
      }),
    ])
  } catch (err) {
    report(`${name}: FAILED`, null, { note: String(err instanceof Error ? err.message : err).split('\n')[0] })
  } finally {
    clearTimeout(timer)
    for (const release of deferred.reverse()) {
      try {
        await release()
      } catch {
        // best effort
      }
    }
  }
}

console.log(`agent-tui bench — node ${process.version}, ${cpus().length} cores, ${cpus()[0]?.model ?? ''}\n`)
const started = Date.now()
await runSection('earlierSession', earlierSession)
for (const [name, run] of Object.entries(sections)) {
  if (only.length && !only.includes(name)) continue
  console.log(`── ${name}`)
  await runSection(name, run)
}

console.log(`\nSummary (${((Date.now() - started) / 1000).toFixed(0)} s; medians unless noted)\n`)
const header = `${'measurement'.padEnd(60)} ${'value'.padStart(11)}  ${'budget'.padEnd(15)} ok/over`
console.log(header)
console.log('─'.repeat(header.length))
for (const row of rows) {
  console.log(`${row.name.padEnd(60)} ${row.shown.padStart(11)}  ${row.budget.padEnd(15)} ${row.verdict}`)
}
// Benchmarks never fail the build; exit explicitly so a stray handle cannot keep the process alive.
process.exit(0)
