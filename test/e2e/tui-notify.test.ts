/**
 * Notifications end to end: the built CLI in a pseudo-terminal read by a real emulator posing as WezTerm.
 * The TUI turns focus reporting on; with the window unfocused (CSI O) a permission prompt rings the bell
 * and sends OSC 777 — both reach the emulator's parser, around the painter's guard that strips them from
 * frames. Focused again (CSI I), the next prompt is quiet. The focus reports never reach the prompt as keys.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { setupE2eEnv } from '../support/e2e-env.ts'
import { keys, pollUntil, startTui, type TuiSession } from '../support/pty-terminal.ts'

const env = setupE2eEnv()
let tui: TuiSession | undefined
afterEach(async () => {
  await tui?.kill()
  tui = undefined
})

describe('notifications in a pseudo-terminal', () => {
  it('rings and notifies for a permission prompt only while the terminal is unfocused', async () => {
    env.server.enqueue(
      { toolCalls: [{ name: 'Bash', arguments: { command: 'touch one.txt' } }] },
      { toolCalls: [{ name: 'Bash', arguments: { command: 'touch two.txt' } }] },
    )
    tui = startTui({
      args: ['--base-url', env.server.baseUrl, '--model', 'test-model'],
      cwd: env.box.workspace,
      env: { ...env.box.env, TERM_PROGRAM: 'WezTerm' },
      cols: 100,
      rows: 30,
    })
    const notes: string[] = []
    let bells = 0
    tui.term.parser.registerOscHandler(777, (data) => {
      notes.push(data)
      return true
    })
    tui.term.onBell(() => {
      bells++
    })
    await tui.waitFor('❯  Message')
    const session = tui
    // The early frame comes first; the TUI switches focus reporting on once it reads keys.
    await pollUntil(
      () => session.output().includes('\x1b[?1004h'),
      () => 'focus reporting was never switched on',
    )
    tui.write('\x1b[O')
    await tui.submit('run one')
    await tui.waitFor('$ touch one.txt')
    await tui.settle()
    expect(notes).toEqual(['notify;agent-tui;Permission needed: Bash touch one.txt'])
    expect(bells).toBe(1)
    tui.write(keys.esc)
    await tui.waitFor('Denied Bash touch one.txt')

    tui.write('\x1b[I')
    await tui.submit('run two')
    await tui.waitFor('$ touch two.txt')
    await tui.settle()
    expect(notes).toHaveLength(1)
    expect(bells).toBe(1)
    tui.write(keys.esc)
    await tui.waitFor('Denied Bash touch two.txt')
    // Typed text around focus reports is intact: nothing of `ESC [ I` / `ESC [ O` was typed.
    tui.write('a\x1b[Ob\x1b[Ic')
    await tui.waitFor('❯ abc')
    expect(tui.screen()).not.toMatch(/\[I|\[O/)
  })
})
