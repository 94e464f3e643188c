// Dev helper: per-thread user/system CPU of the TUI while it streams a reply at 200 tok/s.
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { makeMarkdown } from './markdown.mjs'
import { startPty } from './pty.mjs'
import { makeSandbox } from './sandbox.mjs'
import { startStreamServer } from './stream-server.mjs'
import { submitProfiledTurn, warmUpWanted, withWarmUp } from './profile-turn.mjs'

const cli = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'agent-tui.cjs')
const box = await makeSandbox()
const text = makeMarkdown(4000, 'ZZENDZZ')
let snap0 = null
let pid = 0
const threads = () => {
  const out = {}
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    out[`${tid} ${name}`] = { u: Number(f[11]) * 10, s: Number(f[12]) * 10 }
  }
  return out
}
const warm = warmUpWanted()
const server = await startStreamServer({
  reply: withWarmUp(warm, { text, chunkSize: 16, chunkDelayMs: 20 }),
  onRequest: () => {
    snap0 = { t: performance.now(), th: threads() }
  },
})
const tui = startPty({
  args: [cli, '--base-url', server.baseUrl, '--model', 'test-model'],
  cwd: box.work,
  env: { ...box.env, ...(process.env.EXTRA_ENV ? JSON.parse(process.env.EXTRA_ENV) : {}) },
})
pid = tui.pid
await submitProfiledTurn(tui, warm)
await tui.waitFor((s) => s.includes('ZZENDZZ'), 60000, 'end')
const t1 = performance.now()
const th1 = threads()
const wall = t1 - snap0.t
let tu = 0,
  ts = 0
for (const [k, v] of Object.entries(th1)) {
  const a = snap0.th[k] ?? { u: 0, s: 0 }
  const du = v.u - a.u,
    ds = v.s - a.s
  tu += du
  ts += ds
  if (du + ds > 0) console.log(k.padEnd(30), 'user', du, 'sys', ds)
}
console.log(
  `wall ${wall.toFixed(0)} ms  user ${tu} (${((100 * tu) / wall).toFixed(1)}%) sys ${ts} (${((100 * ts) / wall).toFixed(1)}%)`,
)
await tui.kill()
await server.close()
await box.cleanup()
