import { describe, expect, it } from 'vitest'
import { matches, matcherProblem, matchTarget } from '../../../source/user-hooks/matcher.js'
import { selectHooks } from '../../../source/user-hooks/hook-service.js'
import type { ConfiguredHook } from '../../../source/user-hooks/types.js'

describe('matchers as Claude Code reads them', () => {
  it.each([
    // matcher, value, matches?
    ['', 'Bash', true],
    ['*', 'Bash', true],
    ['  ', 'Read', true],
    ['Bash', 'Bash', true],
    ['Bash', 'bash', false],
    ['Bash', 'BashOutput', false],
    ['Edit|Write', 'Write', true],
    ['Edit | Write', 'Write', true],
    ['Edit|Write', 'NotebookEdit', false],
    ['Notebook.*', 'NotebookEdit', true],
    ['mcp__.*__delete.*', 'mcp__db__delete_row', true],
    ['mcp__.*__delete.*', 'mcp__db__insert', false],
    ['^Web', 'WebFetch', true],
    ['^Web', 'MyWebTool', false],
    // Unanchored like Claude Code's: a regular expression is searched in the name.
    ['Fetch$', 'WebFetch', true],
    ['(unclosed', 'Bash', false],
    ['startup', 'startup', true],
    ['startup|resume', 'clear', false],
  ])('%j against %j → %s', (matcher, value, expected) => {
    expect(matches(matcher, value)).toBe(expected)
  })

  it('names an invalid regular expression and accepts the rest', () => {
    expect(matcherProblem('(unclosed')).toMatch(/not a valid regular expression/)
    expect(matcherProblem('Edit|Write')).toBeNull()
    expect(matcherProblem('mcp__.*')).toBeNull()
    expect(matcherProblem('')).toBeNull()
  })

  it.each([
    ['PreToolUse', { tool_name: 'Bash' }, 'Bash'],
    ['PostToolUse', { tool_name: 'Edit' }, 'Edit'],
    ['SessionStart', { source: 'resume' }, 'resume'],
    ['SessionEnd', { reason: 'clear' }, 'clear'],
    ['PreCompact', { trigger: 'auto' }, 'auto'],
    ['Notification', { notification_type: 'idle_prompt' }, 'idle_prompt'],
    ['UserPromptSubmit', { prompt: 'x' }, null],
    ['Stop', { stop_hook_active: false }, null],
    ['SubagentStop', { stop_hook_active: false }, null],
  ] as const)('%s matches its matcher against %j', (event, input, target) => {
    expect(matchTarget(event, input)).toBe(target)
  })
})

const hook = (over: Partial<ConfiguredHook>): ConfiguredHook => ({
  event: 'PreToolUse',
  matcher: '',
  command: 'true',
  timeoutSeconds: 60,
  scope: 'user',
  file: 'user.json',
  ...over,
})

describe('selectHooks', () => {
  it('keeps the hooks whose matcher accepts the tool, each command once, in configuration order', () => {
    const hooks = [
      hook({ matcher: 'Bash', command: 'a' }),
      hook({ matcher: 'Edit', command: 'b' }),
      hook({ matcher: '*', command: 'c' }),
      hook({ matcher: 'Bash|Edit', command: 'a', file: 'project.json' }),
      hook({ event: 'PostToolUse', matcher: 'Bash', command: 'd' }),
    ]
    const picked = selectHooks(hooks, 'PreToolUse', { tool_name: 'Bash' })
    expect(picked.map((h) => [h.command, h.file])).toEqual([
      ['a', 'user.json'],
      ['c', 'user.json'],
    ])
  })

  it('ignores the matcher of events that have none to match', () => {
    const hooks = [hook({ event: 'Stop', matcher: 'Bash', command: 'x' })]
    expect(selectHooks(hooks, 'Stop', { stop_hook_active: false })).toHaveLength(1)
  })
})
