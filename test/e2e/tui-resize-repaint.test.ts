/**
 * A resize repaints every row (#36 defect 2): the terminal grown from 80×24 to 120×40, during a turn and
 * after it, shows every row as a fresh frame of that size would: the transcript fills the rows it is given.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { PROMPT, startTui, type TuiSession } from '../support/pty-terminal.ts'
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

const reply = (tag: string) =>
  Array.from({ length: 60 }, (_, i) => `${tag} line ${String(i + 1).padStart(2, '0')}`).join('\n')
const idle = (s: string) =>
  s.split('\n').some((l) => l.startsWith(`${PROMPT} Message`)) && !s.includes('Working')

/**
 * Every row as a fresh frame of this size would draw it: the status bar on the first, the prompt on the
 * last, and between them the transcript's last lines, one a row, none left blank.
 */
async function expectFullyPainted(session: TuiSession, rows: number, tag: string): Promise<void> {
  const last = `${tag} line 60`
  const screen = await session.waitFor((s) => {
    const lines = s.split('\n')
    return lines.length === rows && s.includes(last) && idle(s) && lines.some((l) => l === '─'.repeat(120))
  })
  const lines = screen.split('\n')
  expect(lines[0]).toMatch(/^ SAFE {2}test-model/)
  expect(lines.at(-1)).toMatch(/^❯/)
  const separator = lines.findIndex((l) => l === '─'.repeat(120))
  const body = lines.slice(1, separator)
  const numbered = body.map((l) => new RegExp(`^ {2}${tag} line (\\d\\d)$`).exec(l)?.[1]).filter(Boolean)
  // The transcript ends with the reply's last lines, filling its rows (a blank row or two of spacing aside).
  expect(numbered.at(-1), screen).toBe('60')
  expect(numbered.length, screen).toBeGreaterThanOrEqual(body.length - 3)
  expect(numbered.map(Number)).toEqual(numbered.map((_, i) => 61 - numbered.length + i))
}

describe('resizing the terminal', () => {
  it('repaints every row when it grows, during a turn and after it', async () => {
    box = await makeSandbox()
    server = await startScriptedServer({
      replies: [{ text: reply('first'), chunkDelayMs: 20, chunkSize: 20 }, { text: reply('second') }],
    })
    tui = startTui({
      args: ['--base-url', server.baseUrl, '--model', 'test-model'],
      cwd: box.workspace,
      env: box.env,
      cols: 80,
      rows: 24,
    })
    await tui.submit('talk')
    // During the turn: grown while the reply streams.
    await tui.waitFor('first line 0')
    tui.resize(120, 40)
    await expectFullyPainted(tui, 40, 'first')

    // After the turn: shrunk back, a second turn, grown again at its end.
    tui.resize(80, 24)
    await tui.waitFor((s) => s.split('\n').length === 24 && idle(s))
    await tui.submit('again')
    await tui.waitFor((s) => s.includes('second line 60') && idle(s))
    tui.resize(120, 40)
    await expectFullyPainted(tui, 40, 'second')
  })
})
