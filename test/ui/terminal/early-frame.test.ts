import { PassThrough } from 'node:stream'
import xtermHeadless from '@xterm/headless'
import { afterEach, describe, expect, it } from 'vitest'
import { createTheme } from '../../../source/ui/components/theme.js'
import { BACKGROUND_QUERY, createBackgroundProbe } from '../../../source/ui/terminal/background-query.js'
import { type EarlyFrame, paintEarlyFrame, previewOf } from '../../../source/ui/terminal/early-frame.js'

const theme = createTheme({ level: 1 })
let frame: EarlyFrame | null = null

afterEach(() => {
  // Never leave exit/signal listeners behind for the next test.
  frame?.abandon()
  frame = null
})

/** A TTY pair whose output goes into a headless xterm, and whose stdin records raw-mode changes. */
function terminal(cols = 80, rows = 12) {
  const term = new xtermHeadless.Terminal({ cols, rows, allowProposedApi: true })
  const pending: Promise<void>[] = []
  const stdout = Object.assign(new PassThrough(), { isTTY: true, columns: cols, rows })
  stdout.write = ((chunk: string) => {
    pending.push(new Promise<void>((resolve) => term.write(chunk, resolve)))
    return true
  }) as typeof stdout.write
  const rawModes: boolean[] = []
  const stdin = Object.assign(new PassThrough(), {
    isTTY: true,
    setRawMode(on: boolean) {
      rawModes.push(on)
      return stdin
    },
  })
  const screen = async () => {
    await Promise.all(pending)
    const buffer = term.buffer.active
    return Array.from({ length: rows }, (_, y) => buffer.getLine(y)?.translateToString(true) ?? '')
  }
  return {
    term,
    rawModes,
    screen,
    stdin: stdin as unknown as NodeJS.ReadStream,
    stdout: stdout as unknown as NodeJS.WriteStream,
  }
}

const paint = (t: ReturnType<typeof terminal>, model = 'test-model', resumed = false) =>
  paintEarlyFrame({
    stdin: t.stdin,
    stdout: t.stdout,
    mode: 'safe',
    model,
    cwd: '/work/app',
    branch: 'main',
    resumed,
    theme,
  })

/** Lets the stdin stream deliver what was pushed into it. */
const tick = () => new Promise((resolve) => setImmediate(resolve))

describe('the early frame', () => {
  it('draws the status bar, the rule and the empty prompt on the alternate screen, in raw mode', async () => {
    const t = terminal()
    frame = paint(t)
    const rows = await t.screen()
    expect(rows[0]).toBe(' SAFE  test-model · ctx 0% · 0↑ 0↓ · /work/app (main)')
    expect(rows[10]).toBe('─'.repeat(80))
    expect(rows[11]).toBe('❯  Message · / commands · @ files · ! shell · ? keys')
    expect(t.term.buffer.active.type).toBe('alternate')
    expect(t.term.modes.bracketedPasteMode).toBe(true)
    expect(t.rawModes).toEqual([true])
  })

  it("leaves a resumed session's usage out of the status bar: its log has not been read yet", async () => {
    const t = terminal()
    frame = paint(t, 'test-model', true)
    const rows = await t.screen()
    expect(rows[0]).toBe(' SAFE  test-model · /work/app (main)')
    expect(rows[11]).toBe('❯  Message · / commands · @ files · ! shell · ? keys')
  })

  it('echoes plain typing on the prompt row, backspace included', async () => {
    const t = terminal()
    frame = paint(t)
    t.stdin.push(Buffer.from('helo'))
    t.stdin.push(Buffer.from('\x7flo'))
    await tick()
    expect((await t.screen())[11]).toBe('❯ hello ') // the caret: an inverse space
  })

  it('hands every typed byte back to stdin, in order, for the UI to read', async () => {
    const t = terminal()
    frame = paint(t)
    t.stdin.push(Buffer.from('ab'))
    t.stdin.push(Buffer.from('\x1b[A\r'))
    await tick()
    const replace = frame?.handOff()
    expect(replace).toContain('\x1b[2J')
    expect(String(t.stdin.read())).toBe('ab\x1b[A\r')
    // Taken over: later keys are the UI's alone, and abandoning is a no-op.
    t.stdin.push(Buffer.from('c'))
    await tick()
    expect((await t.screen())[11]).toBe('❯ ab ')
    frame?.abandon()
    expect(t.term.buffer.active.type).toBe('alternate')
    expect(t.rawModes).toEqual([true])
  })

  it('asks the background after painting, and takes the answer out of the keys it echoes and hands on', async () => {
    const t = terminal()
    const written: string[] = []
    const write = t.stdout.write.bind(t.stdout)
    t.stdout.write = ((chunk: string) => {
      written.push(chunk)
      return write(chunk)
    }) as typeof t.stdout.write
    const background = createBackgroundProbe()
    frame = paintEarlyFrame({
      stdin: t.stdin,
      stdout: t.stdout,
      mode: 'safe',
      model: 'm',
      cwd: '/w',
      theme,
      background,
    })
    // The frame first, then the question.
    expect(written.at(-1)).toBe(BACKGROUND_QUERY)
    expect(written.slice(0, -1).join('')).toContain('m')
    t.stdin.push(Buffer.from('hé]11;rgb:ffff/ffff/ffffy'))
    await tick()
    expect((await t.screen())[11]).toBe('❯ h ')
    expect(background.background()).toBe('light')
    // Cut off mid-answer at the hand-off: its start goes on with the keys, for the key reader's filter.
    t.stdin.push(Buffer.from(']11;rgb:00'))
    await tick()
    frame?.handOff()
    expect(t.stdin.read().toString('utf8')).toBe('héy]11;rgb:00')
  })

  it('stops echoing at the first key it cannot show exactly, but keeps every key', async () => {
    const t = terminal()
    frame = paint(t)
    t.stdin.push(Buffer.from('hi\rthere'))
    await tick()
    t.stdin.push(Buffer.from('more'))
    await tick()
    expect((await t.screen())[11]).toBe('❯ hi ')
    frame?.handOff()
    expect(String(t.stdin.read())).toBe('hi\rtheremore')
  })

  it('restores the terminal when start-up fails before the UI draws', async () => {
    const t = terminal()
    frame = paint(t)
    frame?.abandon()
    await t.screen()
    expect(t.term.buffer.active.type).toBe('normal')
    expect(t.term.modes.bracketedPasteMode).toBe(false)
    expect(t.rawModes).toEqual([true, false])
  })

  it('paints nothing when it could differ from the UI: a small terminal or wide characters', async () => {
    const small = terminal(50, 12)
    expect(paint(small)).toBeNull()
    const wide = terminal()
    expect(paint(wide, 'モデル')).toBeNull()
    expect(wide.rawModes).toEqual([])
    await wide.screen()
    expect(wide.term.buffer.active.type).toBe('normal')
  })
})

describe('previewOf', () => {
  it('applies printable ASCII and backspace, up to the first key it cannot show', () => {
    expect(previewOf('', 'abc')).toEqual({ text: 'abc', stopped: false })
    expect(previewOf('abc', '\x7f\x7fz')).toEqual({ text: 'az', stopped: false })
    expect(previewOf('', '\x7f')).toEqual({ text: '', stopped: false })
    expect(previewOf('a', 'b\rc')).toEqual({ text: 'ab', stopped: true })
    expect(previewOf('a', '\x1b[A')).toEqual({ text: 'a', stopped: true })
    expect(previewOf('a', 'é')).toEqual({ text: 'a', stopped: true })
  })
})
