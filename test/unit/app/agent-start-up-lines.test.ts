import { expect, it } from 'vitest'
import type { AgentFileProblem } from '../../../source/agent/subagents/agent-files.js'
import { startUpLines } from '../../../source/app/session/subagents.js'

const tier = (i: number): AgentFileProblem => ({
  file: `a${i}.md`,
  field: 'model',
  message: `"sonnet" is a Claude Code model tier; this agent uses the caller's model`,
  skipped: false,
})
const leftOut: AgentFileProblem = { file: 'x.md', field: 'tools', message: 'none exists', skipped: true }

it('a few notes are a line each', () => {
  expect(startUpLines([tier(1), leftOut])).toEqual([
    `a1.md: "model": "sonnet" is a Claude Code model tier; this agent uses the caller's model`,
    'x.md: "tools": none exists (agent not loaded)',
  ])
})

it("a Claude Code collection's many notes are one line; each file left out still has its own", () => {
  const problems = [...Array.from({ length: 40 }, (_, i) => tier(i)), leftOut]
  expect(startUpLines(problems)).toEqual([
    'x.md: "tools": none exists (agent not loaded)',
    `40 agent files loaded with 40 notes, such as a0.md: "model": "sonnet" is a Claude Code model tier; this agent uses the caller's model; /agents lists them all`,
  ])
})
