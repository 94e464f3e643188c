/**
 * `--continue` keeps the permission mode the user left the session in (#36): the settings' mode is for new
 * sessions, and a resumed one that starts in another mode says why in a notice.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { keys, startTui, type TuiSession } from '../support/pty-terminal.ts'
import { makeSandbox, type Sandbox } from '../support/run-cli.ts'
import { type ScriptedServer, startScriptedServer } from '../support/scripted-server.ts'

let box: Sandbox | undefined
let server: ScriptedServer | undefined
let tui: TuiSession | undefined

afterEach(async () => {
  await tui?.kill()
  await server?.close()
  await box?.cleanup()
  tui = server = box = undefined
})

async function quit(session: TuiSession): Promise<void> {
  session.write(keys.ctrlD)
  await session.waitFor(/again to exit/)
  session.write(keys.ctrlD)
  expect((await session.exited).exitCode).toBe(0)
}

describe('resuming a session', () => {
  it('keeps the mode the user left it in, not the settings', async () => {
    box = await makeSandbox()
    server = await startScriptedServer({ replies: [{ text: 'First answer.' }, { text: 'Second answer.' }] })
    const configDir = join(box.home, '.config', 'agent-tui')
    await mkdir(configDir, { recursive: true })
    await writeFile(join(configDir, 'settings.json'), JSON.stringify({ mode: 'auto' }))
    const args = ['--base-url', server.baseUrl, '--model', 'test-model']
    const at = { cwd: box.workspace, env: box.env, cols: 120, rows: 40 }

    tui = startTui({ args, ...at })
    await tui.waitFor((s) => s.startsWith(' AUTO '))
    // AUTO → PLAN → SAFE, then a turn so the session is saved.
    tui.write(keys.shiftTab)
    await tui.waitFor((s) => s.startsWith(' PLAN '))
    tui.write(keys.shiftTab)
    await tui.waitFor((s) => s.startsWith(' SAFE '))
    await tui.submit('hello')
    await tui.waitFor('First answer.')
    await quit(tui)

    tui = startTui({ args: ['--continue', ...args], ...at })
    const screen = await tui.waitFor('where you left it')
    expect(screen.startsWith(' SAFE ')).toBe(true)
    expect(screen).toContain('resumed in SAFE mode, where you left it (the settings say auto)')
    await quit(tui)

    // A mode named on the command line wins, and says so.
    tui = startTui({ args: ['--continue', '--mode', 'plan', ...args], ...at })
    const flagged = await tui.waitFor('the session was left in SAFE')
    expect(flagged.startsWith(' PLAN ')).toBe(true)
  })
})
