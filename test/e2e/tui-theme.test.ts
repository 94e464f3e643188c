/**
 * The `auto` theme (#36): the terminal answers the background question (OSC 11) with white while the
 * user types, and the UI comes up in the light palette with every key typed in the prompt. A `/theme` that
 * was not saved comes back with `--continue`, and a notice says the settings name another.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { keys, PROMPT, startTui, type TuiSession } from '../support/pty-terminal.ts'
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

/** The SAFE badge's colour: its first cell is drawn inverse in the badge's colour (256-colour index). */
function badgeColor(t: TuiSession): { inverse: boolean; palette: boolean; color: number } | undefined {
  const cell = t.term.buffer.active.getLine(t.term.buffer.active.viewportY)?.getCell(1)
  if (!cell) return undefined
  return { inverse: cell.isInverse() !== 0, palette: cell.isFgPalette(), color: cell.getFgColor() }
}

describe('themes in a terminal', () => {
  it('auto: a white background answered amid typing brings up the light palette, and no key is lost', async () => {
    box = await makeSandbox()
    server = await startScriptedServer({ replies: [{ text: 'Answered.' }] })
    tui = startTui({
      args: ['--base-url', server.baseUrl, '--model', 'test-model'],
      cwd: box.workspace,
      env: box.env,
      cols: 100,
      rows: 30,
      // Keys typed before and after the reply, which comes in two writes (ST-terminated).
      onBackgroundQuery: (type) => {
        type('he')
        type('\x1b]11;rgb:ffff/')
        setImmediate(() => {
          type('ffff/ffff\x1b\\')
          type('llo')
        })
      },
    })
    await tui.waitFor((s) => s.split('\n').some((l) => l.startsWith(`${PROMPT}hello`)))
    // The light palette: SAFE's badge in #008700 (256-colour 28), not the terminal's green (2).
    await tui.waitFor(() => badgeColor(tui as TuiSession)?.color === 28)
    expect(badgeColor(tui)).toEqual({ inverse: true, palette: true, color: 28 })
    expect(tui.screen()).not.toContain(']11;')
    expect(tui.screen()).not.toContain('rgb:')
    // What reaches the model is exactly what was typed.
    tui.write('\r')
    await tui.waitFor('Answered.')
    const messages = (server.requests.at(-1)?.body.messages ?? []) as Array<{
      role: string
      content: unknown
    }>
    const user = JSON.stringify(messages.filter((m) => m.role === 'user').at(-1)?.content)
    expect(user).toContain('hello')
    expect(user).not.toContain('11;')
  })

  it('a /theme not saved comes back with --continue, and a notice says the settings name another', async () => {
    box = await makeSandbox()
    server = await startScriptedServer({ replies: [{ text: 'Answered.' }] })
    const args = ['--base-url', server.baseUrl, '--model', 'test-model']
    const start = () =>
      startTui({ args: [...args, '--continue'], cwd: (box as Sandbox).workspace, env: (box as Sandbox).env })
    tui = startTui({ args, cwd: box.workspace, env: box.env, cols: 100, rows: 30 })
    await tui.waitFor(`${PROMPT} Message`)
    // Dark (no answer to the background question, no COLORFGBG): SAFE in the terminal's green.
    expect(badgeColor(tui)?.color).toBe(2)
    await tui.submit('hello')
    await tui.waitFor('Answered.')
    await tui.submit('/theme light')
    await tui.waitFor('Theme light for this session')
    await tui.waitFor(() => badgeColor(tui as TuiSession)?.color === 28)
    tui.write(keys.ctrlD)
    await tui.waitFor(/again to exit/)
    tui.write(keys.ctrlD)
    await tui.exited

    tui = start()
    await tui.waitFor('resumed in the light theme, where you left it (the settings say auto')
    await tui.waitFor(() => badgeColor(tui as TuiSession)?.color === 28)
    expect(tui.screen()).toContain('hello')
  })
})
