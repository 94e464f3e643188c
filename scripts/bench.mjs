// `npm run bench`: measures the SPEC §14 budgets on this machine and prints medians next to the same
// run's `node -e 0` time. Benchmarks, not tests: nothing here fails the build.
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startScriptedServer } from '../test/support/scripted-server.ts'
import { fmt, median, medianOf, timeCommand } from './bench/measure.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const cli = join(root, 'bin', 'agent-tui.cjs')
const node = process.execPath
const only = process.argv.slice(2)
const rows = []
const report = (name, value, budget) => {
  rows.push({ name, value, budget })
  console.log(`${name.padEnd(52)} ${value.padStart(14)}   ${budget ?? ''}`)
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

async function startup() {
  const runs = 15
  const baseline = await medianOf(runs, async () => (await timeCommand(node, ['-e', '0'])).ms)
  report('node -e 0 (baseline)', fmt(baseline))
  const { home, env } = await isolatedEnv()
  await timeCommand(node, [cli, '--version'], { env }) // warm the compile cache
  const version = await medianOf(runs, async () => (await timeCommand(node, [cli, '--version'], { env })).ms)
  report('agent-tui --version', fmt(version), 'budget: well under 150 ms first frame')

  const server = await startScriptedServer({ fallback: { text: 'ok', usage: { prompt: 10, completion: 1 } } })
  const args = [cli, '-p', 'hello', '--base-url', server.baseUrl, '--model', 'test-model']
  await timeCommand(node, args, { env, cwd: home })
  const oneStep = await medianOf(runs, async () => {
    const r = await timeCommand(node, args, { env, cwd: home })
    if (r.code !== 0) throw new Error(`one-step run failed: ${r.stderr}`)
    return r.ms
  })
  report('agent-tui -p (one step, scripted server)', fmt(oneStep))
  await server.close()
  await rm(home, { recursive: true, force: true })
}

async function stepOverhead() {
  const steps = 60
  const { home, env } = await isolatedEnv()
  const work = join(home, 'work')
  await import('node:fs/promises').then((fs) => fs.mkdir(work, { recursive: true }))
  await writeFile(join(work, 'a.txt'), 'hello\n')
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
  if (r.code !== 0) throw new Error(`overhead run failed (${r.code}): ${r.stderr}`)
  const times = server.requests.map((q) => q.receivedAt)
  const gaps = times.slice(1).map((t, i) => t - (times[i] ?? t))
  // Each gap = response transfer + parse + tool (a 1-line Read) + request build + loopback HTTP.
  report(
    `per-step loop overhead (median of ${gaps.length} steps)`,
    fmt(median(gaps)),
    'budget: ≤ 5 ms headless',
  )
  await server.close()
  await rm(home, { recursive: true, force: true })
}

const sections = { startup, stepOverhead }
console.log(`agent-tui bench — node ${process.version}, ${(await import('node:os')).cpus().length} cores\n`)
for (const [name, run] of Object.entries(sections)) {
  if (only.length && !only.includes(name)) continue
  try {
    await run()
  } catch (err) {
    report(`${name}: FAILED`, '-', String(err instanceof Error ? err.message : err))
  }
}
