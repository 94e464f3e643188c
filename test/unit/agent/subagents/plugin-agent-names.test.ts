import { describe, expect, it } from 'vitest'
import type { ExtensionLayer } from '../../../../source/config/claude-code.js'
import type { AgentProfile } from '../../../../source/agent/subagents/agent-profiles.js'
import { mergeLayers } from '../../../../source/agent/subagents/registry.js'

const layer = (dir: string, plugin?: string): ExtensionLayer => ({
  dir,
  scope: dir.startsWith('project') ? 'project' : 'user',
  claudeCode: dir.includes('.claude'),
  ...(plugin ? { plugin } : {}),
})
const profile = (name: string, file: string): AgentProfile => ({
  name,
  description: name,
  source: 'user',
  file,
  tools: null,
  readOnly: false,
  instructions: async () => '',
})

/** Each case: folders (a plugin's named) with their agents → names listed, bare names, notices. */
const cases: Array<{
  name: string
  folders: Array<{ dir: string; plugin?: string; agents: string[] }>
  listed: string[]
  bare: Record<string, string>
  notices: string[]
}> = [
  {
    name: 'a unique plugin agent: listed namespaced, reachable bare',
    folders: [{ dir: 'p/a', plugin: 'a', agents: ['rev'] }],
    listed: ['a:rev'],
    bare: { rev: 'a:rev' },
    notices: [],
  },
  {
    name: 'two plugins with one name: both namespaced, no bare name, one notice',
    folders: [
      { dir: 'p/a', plugin: 'a', agents: ['rev'] },
      { dir: 'p/b', plugin: 'b', agents: ['rev', 'other'] },
    ],
    listed: ['a:rev', 'b:other', 'b:rev'],
    bare: { other: 'b:other' },
    notices: ['the agent rev is in the plugins a and b: reachable as a:rev and b:rev, not as rev'],
  },
  {
    name: "the user's Claude Code agent wins the bare name over a plugin's",
    folders: [
      { dir: 'user/.claude/agents', agents: ['rev'] },
      { dir: 'p/a', plugin: 'a', agents: ['rev'] },
    ],
    listed: ['a:rev', 'rev'],
    bare: {},
    notices: ["rev is the agent of user/.claude/agents/rev.md: this plugin's is a:rev"],
  },
  {
    name: 'a built-in name stays the built-in agent',
    folders: [{ dir: 'p/a', plugin: 'a', agents: ['explore'] }],
    listed: ['a:explore'],
    bare: {},
    notices: ["explore is a built-in agent: this plugin's is a:explore"],
  },
]

describe('plugin agent names', () => {
  it.each(cases)('$name', ({ folders, listed, bare, notices }) => {
    const layers = folders.map((f) => layer(f.dir, f.plugin))
    const loads = folders.map((f) => ({
      agents: f.agents.map((a) => profile(a, `${f.dir}/${a}.md`)),
      problems: [],
    }))
    const merged = mergeLayers(layers, loads)
    const custom = merged.agents.filter((a) => a.source !== 'built-in').map((a) => a.name)
    expect(custom).toEqual(listed)
    expect(Object.fromEntries([...merged.bare].map(([k, v]) => [k, v.name]))).toEqual(bare)
    expect(merged.problems.map((p) => p.message)).toEqual(notices)
  })
})
