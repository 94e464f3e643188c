// Dev helper (not part of the bench): CPU-profiles the TUI while it streams a reply at 200 tok/s.
// Usage: node scripts/bench/profile-stream.mjs [outDir] [chunkDelayMs] [chars]; EXTRA_ENV (JSON) adds to the
// TUI's environment, WARM=1 runs a fast turn first.
import { join, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { makeMarkdown } from './markdown.mjs'
import { startPty } from './pty.mjs'
import { makeSandbox } from './sandbox.mjs'
import { startStreamServer } from './stream-server.mjs'
import { submitProfiledTurn, warmUpWanted, withWarmUp } from './profile-turn.mjs'

const outDir = process.argv[2] ?? '/tmp/prof'
const delay = Number(process.argv[3] ?? 20)
const size = Number(process.argv[4] ?? 4000)
const cli = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'agent-tui.cjs')
const box = await makeSandbox()
const text = makeMarkdown(size, 'ZZENDZZ')
const warm = warmUpWanted()
const server = await startStreamServer({
  reply: withWarmUp(warm, { text, chunkSize: 16, chunkDelayMs: delay }),
})
const tui = startPty({
  args: [cli, '--base-url', server.baseUrl, '--model', 'test-model'],
  cwd: box.work,
  env: {
    ...box.env,
    ...(process.env.EXTRA_ENV ? JSON.parse(process.env.EXTRA_ENV) : {}),
    NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${outDir}`,
  },
  cols: 140,
  rows: 40,
})
await submitProfiledTurn(tui, warm)
await tui
  .waitFor((s) => s.includes('ZZENDZZ'), 15000, 'end')
  .catch((e) => {
    console.log(e.message.slice(0, 3000))
    console.log('sync', tui.term?.modes?.synchronizedOutputMode)
    process.exit(1)
  })
await tui.quiet(300, 3000)
// The second press must land inside the double-press window: wait for the hint, not for quiet (a GC under
// the profiler can hold the output back past the window).
tui.write('\x04')
await tui.waitFor((screen) => screen.includes('again to exit'), 10_000, 'the exit hint')
tui.write('\x04')
// The profile is written at exit, which can take a while under the profiler.
const exited = await Promise.race([
  tui.exited.then(() => true),
  new Promise((r) => setTimeout(r, 30_000, false)),
])
if (!exited) {
  console.log('the TUI did not exit after Ctrl+D twice; sending SIGTERM. Screen:\n', tui.screen())
  process.kill(tui.pid, 'SIGTERM')
  await Promise.race([tui.exited, new Promise((r) => setTimeout(r, 30_000))])
}
await server.close()
await box.cleanup()
console.log('done')
