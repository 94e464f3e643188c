import { describe, expect, it } from 'vitest'
import { textCallNotice } from '../../../../source/agent/turn/request-step.js'
import type { TextToolCallsReport } from '../../../../source/provider/types.js'

describe('textCallNotice: why markup in the reply did not run', () => {
  it.each<[TextToolCallsReport, string | null]>([
    [{ outcome: 'recovered', format: 'hermes', calls: 1 }, null],
    [
      { outcome: 'unknown', format: 'hermes', names: ['read_file'] },
      'the reply holds a tool call written as text (hermes format), but no tool is called read_file: it was not run and shows as the answer',
    ],
    [
      { outcome: 'quoted', format: 'mistral', names: ['Bash'] },
      "the reply holds a tool call written as text (mistral format) to Bash, copied from what the model read (a file, a command's output or the instructions): a quote is not run, and shows as the answer",
    ],
    [
      { outcome: 'unreadable', format: 'deepseek', why: 'a DeepSeek tool call without a name' },
      'the reply holds a tool call written as text (deepseek format) that could not be read (a DeepSeek tool call without a name): it was not run and shows as the answer',
    ],
  ])('%o', (report, text) => {
    expect(textCallNotice(report)).toBe(text)
  })

  it('names at most three tools, each cut at 60 characters', () => {
    const names = ['a', 'b', 'x'.repeat(100), 'd', 'e']
    const text = textCallNotice({ outcome: 'unknown', format: 'hermes', names }) ?? ''
    expect(text).toContain(`no tool is called a, b, ${'x'.repeat(60)}… and 2 more:`)
  })
})
