import { describe, expect, it } from 'vitest'
import type { Action } from '../../../source/store/actions.js'
import { createTheme } from '../../../source/ui/components/theme.js'
import { DEFAULT_BINDINGS } from '../../../source/ui/keys/bindings.js'
import { createKeyRouter, type WheelHandler } from '../../../source/ui/keys/dispatcher.js'
import {
  createMouseHub,
  createMouseParser,
  MOUSE_OFF,
  MOUSE_ON,
  type MouseEvent,
  mouseEventFromCode,
  mouseWanted,
} from '../../../source/ui/keys/mouse.js'
import { createTerminalInput } from '../../../source/ui/keys/terminal-input.js'
import { runTui } from '../../../source/ui/run-tui.js'
import { TuiRoot } from '../../../source/ui/tui-root.js'
import { FakeStdin, FakeStdout, fakeCommands, KEYS, makeStore, renderSized, waitFor } from './helpers.js'

const WHEEL_UP = '\x1b[<64;10;5M'
const WHEEL_DOWN = '\x1b[<65;10;5M'
const CLICK = '\x1b[<0;10;5M\x1b[<0;10;5m'

const kinds = (events: MouseEvent[]) => events.map((e) => e.kind)

describe('createMouseParser', () => {
  it('takes wheel and button reports out of the input and keeps the rest in order', () => {
    const parser = createMouseParser()
    const out = parser.push(`ab${WHEEL_UP}c${CLICK}\x1b[A${WHEEL_DOWN}d`)
    expect(out.text).toBe('abc\x1b[Ad')
    expect(kinds(out.events)).toEqual(['wheelUp', 'other', 'other', 'wheelDown'])
    expect(out.events[0]).toEqual({ kind: 'wheelUp', x: 10, y: 5 })
    expect(parser.hasPending()).toBe(false)
  })

  it('joins a report split across reads, wherever the split falls after the ESC', () => {
    // A lone ESC at the end of a read is the Esc key and is never held; should a report ever be cut
    // right after it, Ink's own parser joins the rest to it and drops the complete report.
    for (let cut = 2; cut < WHEEL_DOWN.length; cut++) {
      const parser = createMouseParser()
      const first = parser.push(`x${WHEEL_DOWN.slice(0, cut)}`)
      const second = parser.push(`${WHEEL_DOWN.slice(cut)}y`)
      expect(first.text + second.text, `cut at ${cut}`).toBe('xy')
      expect(kinds([...first.events, ...second.events])).toEqual(['wheelDown'])
    }
  })

  it('never holds back a lone Esc, and gives up a held start on flush', () => {
    const parser = createMouseParser()
    expect(parser.push('\x1b')).toEqual({ text: '\x1b', events: [] })
    expect(parser.push('q\x1b[<6').text).toBe('q')
    expect(parser.hasPending()).toBe(true)
    expect(parser.flush()).toBe('\x1b[<6')
    expect(parser.hasPending()).toBe(false)
    // A held `ESC[` that turns out to be a key is passed on whole.
    expect(parser.push('\x1b[').text).toBe('')
    expect(parser.push('B').text).toBe('\x1b[B')
  })

  it('reads modifiers off the wheel code (Shift/Meta/Ctrl + wheel still scroll)', () => {
    expect(mouseEventFromCode(64 + 4, 1, 1).kind).toBe('wheelUp')
    expect(mouseEventFromCode(65 + 16, 1, 1).kind).toBe('wheelDown')
    // Horizontal wheel (66/67), the right button and drags are not vertical scrolling.
    expect(mouseEventFromCode(66, 1, 1).kind).toBe('other')
    expect(mouseEventFromCode(2, 1, 1).kind).toBe('other')
    expect(mouseEventFromCode(32, 1, 1).kind).toBe('other')
  })
})

describe('createTerminalInput', () => {
  it('reports the mouse exactly while raw mode is on, and filters stdin for Ink', () => {
    const stdout = new FakeStdout(80, 24)
    const stdin = new FakeStdin()
    const events: MouseEvent[] = []
    const input = createTerminalInput({
      stdin: stdin as unknown as NodeJS.ReadStream,
      stdout: stdout as unknown as NodeJS.WriteStream,
      mouse: true,
      onMouse: (e) => events.push(e),
    })
    expect(input.stdin.isTTY).toBe(true)
    input.stdin.setEncoding('utf8')
    input.stdin.setRawMode(true)
    expect(stdout.frames).toEqual([MOUSE_ON])
    stdin.write(`hi${WHEEL_UP}${CLICK}!`)
    expect(input.stdin.read()).toBe('hi!')
    // One key per read: text and Enter typed in one read reach Ink as two keys.
    stdin.write('Green\r')
    expect([input.stdin.read(), input.stdin.read()]).toEqual(['Green', '\r'])
    expect(kinds(events)).toEqual(['wheelUp', 'other', 'other'])
    input.stdin.setRawMode(false)
    expect(stdout.frames).toEqual([MOUSE_ON, MOUSE_OFF])
    expect(stdin.listenerCount('readable')).toBe(0)
    // Input resumes after a suspension (external editor) with reporting on again; nothing is sent twice.
    input.stdin.setRawMode(true)
    input.stdin.setRawMode(true)
    expect(stdin.listenerCount('readable')).toBe(1)
    input.stdin.setRawMode(false)
    input.stdin.setRawMode(false)
    expect(stdout.frames).toEqual([MOUSE_ON, MOUSE_OFF, MOUSE_ON, MOUSE_OFF])
  })
})

describe('mouseWanted', () => {
  const tty = { isTTY: true, setRawMode: () => {} } as unknown as NodeJS.ReadStream
  const out = { isTTY: true } as unknown as NodeJS.WriteStream
  it('needs a terminal on both ends and honours AGENT_TUI_NO_MOUSE', () => {
    expect(mouseWanted(tty, out, {})).toBe(true)
    expect(mouseWanted(tty, out, { AGENT_TUI_NO_MOUSE: '0' })).toBe(true)
    expect(mouseWanted(tty, out, { AGENT_TUI_NO_MOUSE: '1' })).toBe(false)
    expect(mouseWanted(tty, { isTTY: false } as unknown as NodeJS.WriteStream, {})).toBe(false)
    expect(mouseWanted({ isTTY: false } as unknown as NodeJS.ReadStream, out, {})).toBe(false)
  })
})

describe('wheel routing', () => {
  it('offers a wheel step to the most recently mounted wheel handler first', () => {
    const router = createKeyRouter(DEFAULT_BINDINGS, 1000)
    const seen: string[] = []
    const handler = (name: string, takes: boolean) => ({
      current: ((lines) => {
        seen.push(`${name}:${lines}`)
        return takes
      }) as WheelHandler,
    })
    router.registerWheel(handler('outer', true))
    const off = router.registerWheel(handler('inner', false))
    expect(router.wheel(-3)).toBe(true)
    expect(seen).toEqual(['inner:-3', 'outer:-3'])
    off()
    router.wheel(3)
    expect(seen.at(-1)).toBe('outer:3')
  })
})

describe('mouse wheel in the app', () => {
  const theme = createTheme({ level: 0 })
  const questions: Action[] = Array.from({ length: 40 }, (_, i) => ({
    type: 'user/submitted',
    id: `u${i}`,
    content: `question ${i}`,
    text: `question ${i}`,
  }))

  it('scrolls the transcript by three lines a notch, but not under the help overlay', async () => {
    const store = makeStore(questions)
    const mouse = createMouseHub()
    const r = renderSized(
      <TuiRoot
        store={store}
        commands={fakeCommands({ store })}
        contextLimit={100_000}
        theme={theme}
        doublePressMs={60_000}
        mouse={mouse}
        onExit={() => {}}
      />,
      100,
      30,
    )
    const has = (n: number) => new RegExp(`question ${n}\\b`).test(r.frame())
    await waitFor(() => has(39), r.frame)
    mouse.emit({ kind: 'wheelUp', x: 1, y: 5 })
    mouse.emit({ kind: 'wheelUp', x: 1, y: 5 })
    await waitFor(() => !has(39), r.frame)
    mouse.emit({ kind: 'other', x: 1, y: 5 })
    mouse.emit({ kind: 'wheelDown', x: 1, y: 5 })
    mouse.emit({ kind: 'wheelDown', x: 1, y: 5 })
    await waitFor(() => has(39), r.frame)

    r.stdin.write('?')
    await waitFor(() => !has(39), r.frame)
    mouse.emit({ kind: 'wheelUp', x: 1, y: 5 })
    mouse.emit({ kind: 'wheelUp', x: 1, y: 5 })
    r.stdin.write(KEYS.esc)
    // Back from the overlay the transcript still follows the bottom: the wheel did nothing underneath.
    await waitFor(() => has(39), r.frame)
    r.instance.unmount()
  })

  it('runTui in a terminal switches reporting on and off, and reports never reach the prompt', async () => {
    const store = makeStore()
    const commands = fakeCommands({ store })
    const stdout = new FakeStdout(100, 30)
    const stdin = new FakeStdin()
    Object.assign(stdout, { isTTY: true })
    const done = runTui({
      store,
      commands,
      contextLimit: 1000,
      theme,
      stdout: stdout as unknown as NodeJS.WriteStream,
      stdin: stdin as unknown as NodeJS.ReadStream,
    })
    await waitFor(() => stdin.listenerCount('readable') > 0)
    stdin.write(`${CLICK}${WHEEL_UP}x${WHEEL_DOWN}`)
    stdin.write(KEYS.enter)
    await waitFor(() => commands.named('submit').length === 1)
    expect(commands.named('submit')[0]).toEqual([{ text: 'x' }])
    stdin.write(KEYS.ctrl('d'))
    stdin.write(KEYS.ctrl('d'))
    await expect(done).resolves.toEqual({ status: 0 })
    const written = stdout.frames.join('')
    expect(written).toContain(MOUSE_ON)
    expect(written.lastIndexOf(MOUSE_OFF)).toBeGreaterThan(written.lastIndexOf(MOUSE_ON))
    expect(written.lastIndexOf(MOUSE_OFF)).toBeLessThan(written.lastIndexOf('\x1b[?1049l'))
  })

  it('runTui leaves the mouse alone when told not to', async () => {
    const store = makeStore()
    const stdout = new FakeStdout(100, 30)
    const stdin = new FakeStdin()
    Object.assign(stdout, { isTTY: true })
    const done = runTui({
      store,
      commands: fakeCommands({ store }),
      contextLimit: 1000,
      theme,
      mouse: false,
      stdout: stdout as unknown as NodeJS.WriteStream,
      stdin: stdin as unknown as NodeJS.ReadStream,
    })
    await waitFor(() => stdin.listenerCount('readable') > 0)
    stdin.write(KEYS.ctrl('d'))
    stdin.write(KEYS.ctrl('d'))
    await expect(done).resolves.toEqual({ status: 0 })
    expect(stdout.frames.join('')).not.toContain('\x1b[?1000')
  })
})
