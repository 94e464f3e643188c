import { describe, expect, it } from 'vitest'
import { cleanLine, createLastLineTracker } from '../../../source/tasks/last-line.js'

const push = (tracker: ReturnType<typeof createLastLineTracker>, ...chunks: string[]) => {
  for (const chunk of chunks) tracker.push(Buffer.from(chunk))
}

describe('createLastLineTracker', () => {
  it('reports the last non-empty line, across chunk boundaries', () => {
    const tracker = createLastLineTracker()
    expect(tracker.value).toBe('')
    push(tracker, 'first line\nsec', 'ond line\n\n   \n')
    expect(tracker.value).toBe('second line')
  })

  it('prefers an unterminated current line once it has text', () => {
    const tracker = createLastLineTracker()
    push(tracker, 'done\nwork')
    expect(tracker.value).toBe('work')
    push(tracker, 'ing')
    expect(tracker.value).toBe('working')
  })

  it('treats carriage returns as line ends so progress bars show their latest state', () => {
    const tracker = createLastLineTracker()
    push(tracker, 'progress 10%\rprogress 50%\rprogress 90%\r')
    expect(tracker.value).toBe('progress 90%')
  })

  it('strips terminal escapes and control characters', () => {
    const tracker = createLastLineTracker()
    push(tracker, '\x1b[32mok\x1b[0m\ttests \x1b]0;title\x07passed\x07\n')
    expect(tracker.value).toBe('ok tests passed')
  })

  it('bounds the length of the line', () => {
    const tracker = createLastLineTracker(20)
    push(tracker, `${'x'.repeat(5000)}\n`)
    expect(tracker.value).toBe(`${'x'.repeat(19)}…`)
  })

  it('finds the last line at the end of a very large chunk', () => {
    const tracker = createLastLineTracker()
    push(tracker, `${'filler\n'.repeat(200_000)}the end\n`)
    expect(tracker.value).toBe('the end')
  })
})

describe('cleanLine', () => {
  it('removes escapes, controls and replacement characters at the edges', () => {
    expect(cleanLine('\uFFFD\x1b[1mbold\x1b[m\x00 \uFFFD')).toBe('bold')
  })
})
