import { describe, expect, it } from 'vitest'
import {
  type Contribution,
  groupContributions,
  summarizeContributions,
} from '../../../source/config/project-contributions.js'

describe('what a repository brings, for the trust prompt', () => {
  const twice: Contribution[] = [
    { kind: 'agent', label: 'tester', file: '.agent-tui/agents/tester.md' },
    { kind: 'agent', label: 'tester', file: '.claude/agents/tester.md' },
    { kind: 'command', label: '/deploy', file: '.claude/commands/deploy.md' },
  ]

  it('names an agent in both places once, with both files', () => {
    expect(groupContributions(twice)).toEqual([
      {
        title: 'Agents',
        items: ['tester'],
        files: ['.agent-tui/agents/tester.md', '.claude/agents/tester.md'],
      },
      { title: 'Commands', items: ['/deploy'], files: ['.claude/commands/deploy.md'] },
    ])
    expect(summarizeContributions(twice)).toBe('agent tester; command /deploy (.claude/commands/deploy.md)')
  })
})
