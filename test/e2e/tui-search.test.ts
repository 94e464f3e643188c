/**
 * Transcript search in a real terminal (#36): Ctrl+F over a session of several answers, the matches marked
 * (in the dark theme the current one black on cyan, the others black on yellow), moving with Enter / n / N, Esc back to the prompt with the draft as it was, and
 * the next message sent whole.
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

const promptLine = (text: string) => (s: string) =>
  s.split('\n').some((l) => l.startsWith(`${PROMPT}${text}`))

/** The 16-colour backgrounds of the dark theme's search highlights (palette.ts: matchCurrent, match). */
const CURRENT = 6
const OTHER = 3

/** The text of the cells on a palette background, row by row, below the status bar. */
function textOn(session: TuiSession, background: number): string[] {
  const buffer = session.term.buffer.active
  const out: string[] = []
  for (let y = 1; y < session.term.rows; y++) {
    const line = buffer.getLine(buffer.viewportY + y)
    if (!line) continue
    let text = ''
    for (let x = 0; x < session.term.cols; x++) {
      const cell = line.getCell(x)
      if (cell?.isBgPalette() && cell.getBgColor() === background) text += cell.getChars() || ' '
    }
    if (text.trim() !== '') out.push(text)
  }
  return out
}

describe('transcript search', () => {
  it('finds, marks and moves through matches over several answers, and Esc keeps the draft', async () => {
    box = await makeSandbox()
    server = await startScriptedServer({
      replies: [
        { text: 'The first kiwi answer.' },
        { text: 'A second reply without the fruit.' },
        { text: 'Third: kiwi and KIWI again.' },
        { text: 'Got your note.' },
      ],
    })
    tui = startTui({
      args: ['--base-url', server.baseUrl, '--model', 'test-model'],
      cwd: box.workspace,
      env: box.env,
      cols: 100,
      rows: 30,
    })
    for (const [question, answer] of [
      ['one', 'The first kiwi answer.'],
      ['two', 'A second reply without the fruit.'],
      ['three', 'Third: kiwi and KIWI again.'],
    ]) {
      await tui.submit(question ?? '')
      await tui.waitFor(answer ?? '')
    }

    tui.write('half a thought')
    await tui.waitFor(promptLine('half a thought'))
    tui.write('\x06') // Ctrl+F
    await tui.waitFor('type to search')
    tui.write('kiwi')
    // Smart case: lower case finds all three; the first on screen (the top) is the current one.
    await tui.waitFor('match 1 of 3')
    expect(textOn(tui, CURRENT)).toEqual(['kiwi'])
    // The other two, and the field's ` / ` label, in the match colour.
    expect(textOn(tui, OTHER)).toEqual(['kiwiKIWI', ' / '])
    tui.write(keys.enter)
    await tui.waitFor('match 2 of 3')
    tui.write(keys.tab)
    await tui.waitFor('n/N next/previous')
    tui.write('n')
    await tui.waitFor('match 3 of 3')
    expect(textOn(tui, CURRENT)).toEqual(['KIWI'])
    tui.write('n')
    await tui.waitFor('match 1 of 3')
    tui.write('N')
    await tui.waitFor('match 3 of 3')
    // A capital makes the query exact.
    tui.write('/')
    await tui.waitFor('Enter/↓ next')
    for (let i = 0; i < 4; i++) tui.write(keys.backspace)
    tui.write('KIWI')
    await tui.waitFor((s) => s.includes(' / KIWI') && s.includes('match 1 of 1 ·'))

    tui.write(keys.esc)
    await tui.waitFor((s) => !s.includes(' / KIWI') && promptLine('half a thought')(s))
    expect(textOn(tui, CURRENT).join('') + textOn(tui, OTHER).join('')).not.toContain('KIWI')
    tui.write(', finished')
    await tui.waitFor(promptLine('half a thought, finished'))
    tui.write(keys.enter)
    await tui.waitFor('Got your note.')
    const messages = (server.requests.at(-1)?.body.messages ?? []) as Array<{
      role: string
      content: unknown
    }>
    expect(JSON.stringify(messages.at(-1)?.content)).toContain('half a thought, finished')
  })
})
