// docs/performance.md#vim-mode: vim mode adds nothing to the echo of a typed key. Sessions alternate between
// vim mode off and on (`"editorMode": "vim"` in the user's settings), in the same pty + emulator as the
// other TUI rows; in each, keys are typed one by one once start-up has settled (vim's engine loaded), and
// the time from writing a key to the frame that shows it is taken. With vim mode on, in insert mode
// (typing, the path that must cost nothing more) and in normal mode (`x` deleting one character a key).
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { median } from './measure.mjs'
import { PROMPT, startPty } from './pty.mjs'
import { makeSandbox } from './sandbox.mjs'
import { startStreamServer } from './stream-server.mjs'

const SESSIONS = 3
const KEYS = 'thequickbrownfoxjumps'
/** Wider than one frame at Ink's 30 fps, so each echo is a leading-edge frame. */
const KEY_GAP_MS = 50
const promptIs = (text) => (_screen, lines) => lines.some((line) => line.trimEnd() === `${PROMPT}${text}`)

async function session(ctx, box, server, vim) {
  const tui = startPty({
    args: [ctx.cli, '--base-url', server.baseUrl, '--model', 'test-model'],
    cwd: box.work,
    env: box.env,
  })
  ctx.defer(() => tui.kill())
  await tui.waitFor((_s, lines) => lines[0].includes('test-model'), 15_000, 'the first frame')
  await server.until(() => server.listings.length > 0, 15_000, 'the model listing after start-up')
  if (vim) await tui.waitFor((screen) => screen.includes('-- INSERT --'), 5_000, 'vim mode')
  await tui.quiet(300, 5_000)
  const insert = []
  let typed = ''
  for (const key of KEYS) {
    typed += key
    const wroteAt = performance.now()
    tui.write(key)
    insert.push((await tui.waitFor(promptIs(typed), 5_000, `"${typed}"`)) - wroteAt)
    await sleep(KEY_GAP_MS)
  }
  const normal = []
  if (vim) {
    tui.write('\x1b')
    await tui.waitFor((screen) => screen.includes('-- NORMAL --'), 5_000, 'normal mode')
    await sleep(KEY_GAP_MS)
    while (typed.length > 1) {
      typed = typed.slice(0, -1)
      const wroteAt = performance.now()
      tui.write('x')
      normal.push((await tui.waitFor(promptIs(typed), 5_000, `"${typed}" after x`)) - wroteAt)
      await sleep(KEY_GAP_MS)
    }
  }
  await tui.kill()
  return { insert, normal }
}

export async function vimEcho(ctx) {
  const server = await startStreamServer({ reply: () => ({ text: 'ok' }) })
  ctx.defer(() => server.close())
  const plain = await makeSandbox()
  ctx.defer(() => plain.cleanup())
  const vimBox = await makeSandbox()
  ctx.defer(() => vimBox.cleanup())
  const dir = join(vimBox.env.XDG_CONFIG_HOME, 'agent-tui')
  await mkdir(dir, { recursive: true })
  await writeFile(join(dir, 'settings.json'), JSON.stringify({ editorMode: 'vim' }))
  const off = []
  const insert = []
  const normal = []
  for (let i = 0; i <= SESSIONS; i++) {
    const a = await session(ctx, plain, server, false)
    const b = await session(ctx, vimBox, server, true)
    // Session 0 warms the compile cache.
    if (i === 0) continue
    off.push(...a.insert)
    insert.push(...b.insert)
    normal.push(...b.normal)
  }
  ctx.report(`key echo, vim mode off (median of ${off.length}, alternating sessions)`, median(off))
  ctx.report('  key echo, vim mode on, insert mode', median(insert), {
    note: `${(median(insert) - median(off)).toFixed(1)} ms against vim mode off`,
  })
  ctx.report('  key echo, vim mode on, normal mode (x)', median(normal))
}
