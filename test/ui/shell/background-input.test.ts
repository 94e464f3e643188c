import { describe, expect, it } from 'vitest'
import { createTerminalInput } from '../../../source/ui/keys/terminal-input.js'
import { BACKGROUND_QUERY, createBackgroundProbe } from '../../../source/ui/terminal/background-query.js'
import { FakeStdin, FakeStdout, waitFor } from './helpers.js'

function input() {
  const stdout = new FakeStdout(80, 24)
  const stdin = new FakeStdin()
  const probe = createBackgroundProbe()
  const answers: string[] = []
  probe.onAnswer((b) => answers.push(b))
  const terminal = createTerminalInput({
    stdin: stdin as unknown as NodeJS.ReadStream,
    stdout: stdout as unknown as NodeJS.WriteStream,
    mouse: false,
    onMouse: () => {},
    background: probe,
  })
  terminal.stdin.setEncoding('utf8')
  terminal.stdin.setRawMode(true)
  const pieces: string[] = []
  const drain = () => {
    for (let p = terminal.stdin.read(); p !== null; p = terminal.stdin.read()) pieces.push(String(p))
    return pieces.join('')
  }
  return { stdin, stdout, probe, answers, drain }
}

describe('the key reader and the background answer', () => {
  it('takes a late answer, split over reads, out of the keys, and keeps every key in order', () => {
    const t = input()
    t.probe.ask((text) => t.stdout.write(text))
    expect(t.stdout.frames).toContain(BACKGROUND_QUERY)
    t.stdin.write('ab\x1b]11;rgb:ff')
    t.stdin.write('ff/ffff/ffff\x07cd\r')
    expect(t.drain()).toBe('abcd\r')
    expect(t.answers).toEqual(['light'])
  })

  it('gives back a lone Esc held while the answer could still come', async () => {
    const t = input()
    t.probe.ask(() => {})
    t.stdin.write('\x1b')
    expect(t.drain()).toBe('')
    await waitFor(() => t.drain() === '\x1b')
    expect(t.answers).toEqual([])
  })
})
