import { describe, expect, it } from 'vitest'
import {
  BUILT_IN_AGENTS,
  READ_ONLY_TOOLS,
  toolNamesFor,
} from '../../../../source/agent/subagents/agent-profiles.js'

const CATALOG = [
  'Bash',
  'TaskOutput',
  'Read',
  'Write',
  'Edit',
  'Glob',
  'Grep',
  'TodoWrite',
  'ExitPlanMode',
  'WebFetch',
  'WebSearch',
  // Added after the catalog's tools when an embedding model is configured.
  'CodeSearch',
  'Agent',
]
const builtIn = (name: string) =>
  BUILT_IN_AGENTS.find((a) => a.name === name) as (typeof BUILT_IN_AGENTS)[number]

describe('toolNamesFor', () => {
  it.each([
    ['build (main session): every tool', builtIn('build'), false, true, CATALOG],
    [
      'general-purpose: every tool but Agent (and ExitPlanMode, which only the main session can use)',
      builtIn('general-purpose'),
      true,
      true,
      CATALOG.filter((t) => t !== 'Agent' && t !== 'ExitPlanMode'),
    ],
    ['explore: read-only tools', builtIn('explore'), true, true, READ_ONLY_TOOLS],
    ['plan: read-only tools', builtIn('plan'), true, true, READ_ONLY_TOOLS],
    ['a custom list, catalog order', { tools: ['Grep', 'Read'] }, true, false, ['Read', 'Grep']],
    ['Agent listed and nesting allowed', { tools: ['Read', 'Agent'] }, true, true, ['Read', 'Agent']],
    ['Agent listed but too deep to nest', { tools: ['Read', 'Agent'] }, true, false, ['Read']],
  ])('%s', (_label, profile, subagent, nesting, expected) => {
    expect(toolNamesFor(profile, CATALOG, { subagent, nesting })).toEqual(expected)
  })
})
