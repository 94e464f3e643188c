import { describe, expect, it } from 'vitest'
import { toolMask, unknownToolNames } from '../../../../source/agent/toolset/mask.js'
import { parseRule } from '../../../../source/permissions/rules.js'

const only = (names: string[]) => ({ names, source: '--tools' })
const deny = (...texts: string[]) => texts.map((t) => parseRule(t, 'settings.json'))

describe('toolMask', () => {
  it.each<[string, Parameters<typeof toolMask>[0], Record<string, boolean>]>([
    ['no list, no deny: every tool', {}, { Bash: true, WebFetch: true, mcp__x__y: true }],
    [
      '--tools: exactly those',
      { only: only(['Read', 'Grep']) },
      { Read: true, Grep: true, Glob: false, Bash: false },
    ],
    ['--tools "": none', { only: only([]) }, { Read: false, Bash: false }],
    [
      '--tools with a wildcard',
      { only: only(['Read', 'mcp__github__*']) },
      { Read: true, mcp__github__create_issue: true, mcp__notion__search: false },
    ],
    ['a bare deny', { denied: deny('WebFetch') }, { WebFetch: false, WebSearch: true, Bash: true }],
    ['a deny of every call (`(*)`)', { denied: deny('Bash(*)') }, { Bash: false }],
    [
      'a deny with a specifier leaves the tool',
      { denied: deny('Bash(rm *)', 'Write(*.lock)') },
      { Bash: true, Write: true },
    ],
    [
      'a bare deny covers its family',
      { denied: deny('Edit') },
      { Edit: false, Write: false, NotebookEdit: false, Read: true },
    ],
    [
      'a wildcard deny of a server',
      { denied: deny('mcp__notion__*') },
      { mcp__notion__search: false, mcp__github__x: true },
    ],
    [
      'a deny beats the list',
      { only: only(['Read', 'WebFetch']), denied: deny('WebFetch') },
      { Read: true, WebFetch: false },
    ],
  ])('%s', (_, opts, expected) => {
    const mask = toolMask(opts)
    for (const [name, allowed] of Object.entries(expected))
      expect([name, mask.allows(name)]).toEqual([name, allowed])
  })

  it('says why a tool is left out', () => {
    const mask = toolMask({ only: only(['Read']), denied: deny('Read') })
    expect(mask.reason('Bash')).toBe('--tools does not list it (Read)')
    expect(mask.reason('Read')).toBe('denied by the rule Read in settings.json')
    expect(toolMask({ only: only([]) }).reason('Read')).toBe('--tools does not list it (no tools)')
  })
})

describe('unknownToolNames', () => {
  it('names a typo, not wildcards nor MCP tools (known only later)', () => {
    expect(unknownToolNames(only(['Read', 'Raed', 'mcp__x__y', 'Web*']), ['Read', 'Bash'])).toEqual([
      '--tools: no tool is named Raed (the tools: Read, Bash)',
    ])
    expect(unknownToolNames(only(['Read']), ['Read'])).toEqual([])
  })
})
