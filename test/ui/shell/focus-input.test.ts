import { describe, expect, it } from 'vitest'
import { FOCUS_OFF, FOCUS_ON } from '../../../source/ui/keys/focus-report.js'
import { MOUSE_OFF, MOUSE_ON } from '../../../source/ui/keys/mouse.js'
import { createTerminalInput } from '../../../source/ui/keys/terminal-input.js'
import { FakeStdin, FakeStdout } from './helpers.js'

function input(mouse: boolean) {
  const stdout = new FakeStdout(80, 24)
  const stdin = new FakeStdin()
  const reports: boolean[] = []
  const terminal = createTerminalInput({
    stdin: stdin as unknown as NodeJS.ReadStream,
    stdout: stdout as unknown as NodeJS.WriteStream,
    mouse,
    onMouse: () => {},
    onFocus: (focused) => reports.push(focused),
  })
  terminal.stdin.setEncoding('utf8')
  return {
    stdin,
    stdout,
    reports,
    read: terminal.stdin,
    setRaw: (on: boolean) => terminal.stdin.setRawMode(on),
  }
}

describe('focus reporting in the key reader', () => {
  it('is on exactly while input is read, with or without the mouse', () => {
    const a = input(false)
    a.setRaw(true)
    a.setRaw(false)
    expect(a.stdout.frames).toEqual([FOCUS_ON, FOCUS_OFF])
    const b = input(true)
    b.setRaw(true)
    b.setRaw(false)
    expect(b.stdout.frames).toEqual([MOUSE_ON + FOCUS_ON, MOUSE_OFF + FOCUS_OFF])
  })

  it('swallows CSI I / CSI O, even split across reads, and reports them', () => {
    const t = input(true)
    t.setRaw(true)
    t.stdin.write('h\x1b[Oi')
    expect([t.read.read(), t.read.read()]).toEqual(['hi', null])
    // A report cut after `ESC [` is held until its last byte arrives.
    t.stdin.write('x\x1b[')
    t.stdin.write('I\r')
    expect([t.read.read(), t.read.read(), t.read.read()]).toEqual(['x', '\r', null])
    expect(t.reports).toEqual([false, true])
  })
})
