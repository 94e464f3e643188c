/**
 * Vim mode end to end: the built CLI in a pseudo-terminal read by a real emulator. `/vim` turns it on and
 * saves `editorMode` in the user's settings file; `cw` changes a word of the draft, Enter in normal mode
 * sends it as edited; the next start reads the setting back and starts in vim mode.
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { setupE2eEnv } from '../support/e2e-env.ts'
import { keys, startTui, type TuiSession } from '../support/pty-terminal.ts'

const env = setupE2eEnv()
let tui: TuiSession | undefined
afterEach(async () => {
  await tui?.kill()
  tui = undefined
})

type Msg = { role: string; content: unknown }
const lastUser = (i: number) =>
  ((env.server.requests[i]?.body.messages ?? []) as Msg[]).filter((m) => m.role === 'user').at(-1)?.content

describe('vim mode in a pseudo-terminal', () => {
  it('/vim, then cw…Esc edits the draft and Enter sends it; the setting holds at the next start', async () => {
    const box = env.box
    env.server.enqueue({ text: 'On it.' })
    const start = () =>
      startTui({
        args: ['--base-url', env.server.baseUrl, '--model', 'test-model'],
        cwd: box.workspace,
        env: box.env,
        cols: 100,
        rows: 30,
      })
    tui = start()
    await tui.waitFor('❯  Message')
    await tui.submit('/vim')
    await tui.waitFor('-- INSERT -- ──')
    await tui.waitFor('Vim mode on')
    const settings = JSON.parse(
      await readFile(join(box.home, '.config', 'agent-tui', 'settings.json'), 'utf8'),
    )
    expect(settings).toMatchObject({ editorMode: 'vim' })

    tui.write('fix the old bug')
    await tui.waitFor('❯ fix the old bug')
    tui.write(keys.esc)
    await tui.waitFor('-- NORMAL -- ──')
    tui.write('0ww')
    tui.write('c')
    await tui.waitFor('-- NORMAL -- c ──')
    tui.write('w')
    await tui.waitFor('-- INSERT -- ──')
    tui.write('new')
    await tui.waitFor('❯ fix the new bug')
    tui.write(keys.esc)
    await tui.waitFor('-- NORMAL -- ──')
    tui.write(keys.enter)
    await tui.waitFor('On it.')
    expect(lastUser(0)).toBe('fix the new bug')
    await tui.kill()

    tui = start()
    await tui.waitFor('-- INSERT -- ──')
  })
})
