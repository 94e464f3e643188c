import { describe, expect, it } from 'vitest'
import { parseAgentFile } from '../../../../source/agent/subagents/agent-files.js'
import { allowsNesting, toolNamesFor } from '../../../../source/agent/subagents/agent-profiles.js'

const TOOLS = ['Bash', 'Read', 'Write', 'Glob', 'Grep', 'TaskOutput', 'TaskStop']
const CATALOG = [...TOOLS, 'mcp__db__query', 'Agent']
const parse = (front: string) =>
  parseAgentFile(`---\ndescription: d\n${front}\n---\nBody.\n`, {
    file: 'agents/x.md',
    source: 'user',
    tools: TOOLS,
    fallbackName: 'x',
  })

/** frontmatter → the tools a subagent of it gets (nesting allowed), and the notices. */
const cases: Array<[string, string, string[], string[]]> = [
  [
    "Claude Code's names, mapped as in tools:",
    'disallowedTools: LS, KillShell, Task',
    ['Bash', 'Read', 'Write', 'Grep', 'TaskOutput', 'mcp__db__query'],
    ["Claude Code's LS, KillShell and Task are Glob, TaskStop and Agent here"],
  ],
  ['narrows a tools: list', 'tools: [Read, Grep, Agent]\ndisallowedTools: [Grep, Agent]', ['Read'], []],
  [
    'a per-command form withholds the whole tool (it only narrows)',
    'disallowedTools: Bash(rm *)',
    ['Read', 'Write', 'Glob', 'Grep', 'TaskOutput', 'TaskStop', 'mcp__db__query'],
    [],
  ],
  [
    'an MCP entry withholds the MCP tools',
    'disallowedTools: mcp__db',
    ['Bash', 'Read', 'Write', 'Glob', 'Grep', 'TaskOutput', 'TaskStop'],
    [],
  ],
  ['* withholds every tool', 'disallowedTools: "*"', [], []],
  [
    'an unknown name is a notice and withholds nothing else',
    'disallowedTools: [Nope, Write]',
    ['Bash', 'Read', 'Glob', 'Grep', 'TaskOutput', 'TaskStop', 'mcp__db__query'],
    ['no tool named "Nope" in this session; nothing to withhold'],
  ],
]

describe('disallowedTools', () => {
  it.each(cases)('%s', async (_name, front, expected, notices) => {
    const { agent, problems } = await parse(front)
    expect(agent).not.toBeNull()
    expect(problems.map((p) => p.message)).toEqual(notices)
    if (!agent) return
    const nesting = allowsNesting(agent)
    expect(toolNamesFor(agent, CATALOG, { subagent: true, nesting })).toEqual(expected)
  })

  it('is not a field left out with a warning', async () => {
    const { problems } = await parse('disallowedTools: Write')
    expect(problems).toEqual([])
  })

  it('a list that is not names is an error naming the field', async () => {
    const { agent, problems } = await parse('disallowedTools: {a: 1}')
    expect(agent).toBeNull()
    expect(problems[0]?.field).toBe('disallowedTools')
  })
})
