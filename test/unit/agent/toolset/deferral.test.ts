import { describe, expect, it } from 'vitest'
import { type Candidate, decideDeferral, tierOf } from '../../../../source/agent/toolset/deferral.js'

// Which definitions every request carries and which wait behind ToolSearch, by window and mode.

const core = ['Bash', 'Read', 'Edit', 'Write', 'Glob', 'Grep', 'TodoWrite', 'Agent'].map((name) => ({
  name,
  bytes: 1500,
  tier: tierOf(name),
}))
const common: Candidate[] = ['AskUserQuestion', 'BashOutput', 'KillShell'].map((name) => ({
  name,
  bytes: 800,
  tier: tierOf(name),
}))
const web: Candidate[] = ['WebFetch', 'WebSearch'].map((name) => ({ name, bytes: 900, tier: tierOf(name) }))
const rare: Candidate[] = ['NotebookEdit', 'Config'].map((name) => ({ name, bytes: 700, tier: tierOf(name) }))
const mcp = (n: number, bytes: number): Candidate[] =>
  Array.from({ length: n }, (_, i) => ({ name: `mcp__big__tool_${i}`, bytes, tier: 'mcp' as const }))
const FINDERS = 1800

function decide(tools: Candidate[], budgetBytes: number, mode: 'auto' | 'always' | 'never' = 'auto') {
  return decideDeferral({ tools, budgetBytes, mode, finderBytes: () => FINDERS })
}

describe('tierOf', () => {
  it.each([
    ['Bash', 'core'],
    ['Agent', 'core'],
    ['Skill', 'core'],
    ['WebFetch', 'web'],
    ['NotebookEdit', 'rare'],
    ['ListMcpResources', 'rare'],
    ['mcp__notion__API-post-search', 'mcp'],
    ['AskUserQuestion', 'common'],
    // The file tools: apply_patch stands in for Edit and Write; the others are rare.
    ['apply_patch', 'core'],
    ['MultiEdit', 'rare'],
    ['DeleteFile', 'rare'],
    ['SaveMemory', 'rare'],
  ])('%s is %s', (name, tier) => expect(tierOf(name)).toBe(tier))
})

describe('decideDeferral', () => {
  const builtins = [...core, ...common, ...web, ...rare]
  // Beyond the core: 3×800 + 2×900 + 2×700 = 5600 bytes.

  it.each<[string, Candidate[], number, number, string[]]>([
    ['a large window: everything fits, nothing deferred', [...builtins, ...mcp(6, 1000)], 20_000, 0, []],
    [
      'a big MCP server at a mid window: the MCP and rare tools wait',
      [...builtins, ...mcp(40, 2000)],
      13_000,
      1,
      [...rare, ...mcp(40, 2000)].map((t) => t.name),
    ],
    [
      'a small window: the web tools wait too',
      [...builtins, ...mcp(40, 2000)],
      4_500,
      2,
      [...web, ...rare, ...mcp(40, 2000)].map((t) => t.name),
    ],
    [
      'a tiny window: everything but the core',
      [...builtins, ...mcp(40, 2000)],
      1_000,
      3,
      [...common, ...web, ...rare, ...mcp(40, 2000)].map((t) => t.name),
    ],
  ])('%s', (_, tools, budget, step, deferred) => {
    const d = decide(tools, budget)
    expect(d.step).toBe(step)
    expect(new Set(d.deferred)).toEqual(new Set(deferred))
    // The core is never deferred, and what is sent is everything else.
    for (const t of core) expect(d.sent).toContain(t.name)
    expect(d.sent.length + d.deferred.length).toBe(tools.length)
    if (step > 0) expect(d.sentBytes).toBeLessThan(tools.reduce((n, t) => n + t.bytes, 0))
  })

  it('never defers when deferring would send more than everything (the finders cost more than they save)', () => {
    // Two small rare tools over a tiny budget: deferring them costs the finders' 1800 bytes.
    const tools = [...core, ...rare]
    expect(decide(tools, 100)).toMatchObject({ step: 0, deferred: [] })
  })

  it('never: sends every definition; always: only the core (and the finders)', () => {
    const tools = [...builtins, ...mcp(40, 2000)]
    expect(decide(tools, 1_000, 'never')).toMatchObject({ step: 0, deferred: [] })
    const always = decide(tools, 1_000_000, 'always')
    expect(always.step).toBe(3)
    expect(always.sent).toEqual(core.map((t) => t.name))
    expect(always.sentBytes).toBe(core.length * 1500 + FINDERS)
  })

  it('always with nothing beyond the core defers nothing', () => {
    expect(decide(core, 0, 'always')).toMatchObject({ step: 0, deferred: [] })
  })
})
