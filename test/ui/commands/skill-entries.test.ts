import { describe, expect, it } from 'vitest'
import type { SkillDefinition } from '../../../source/extensions/types.js'
import { skillCommandEntries } from '../../../source/ui/commands/user-commands.js'

const skill = (name: string, extra: Partial<SkillDefinition> = {}): SkillDefinition => ({
  name,
  description: 'Does things',
  scope: 'user',
  dir: '/s',
  path: '/s/SKILL.md',
  file: 's/SKILL.md',
  ...extra,
})

describe('skill entries in completion and /help', () => {
  it.each([
    ['the user’s own', skill('pdf'), '(skill, user)', 'skill:user'],
    [
      'a plugin’s: its plugin, not "user"',
      skill('m:olympiad', { plugin: 'm' }),
      '(skill, plugin m)',
      'skill:plugin:m',
    ],
  ])('%s', (_what, definition, label, source) => {
    const [entry] = skillCommandEntries([definition], async () => ({ text: '' }))
    expect(entry?.description).toBe(`Does things ${label}`)
    expect(entry?.source).toBe(source)
  })
})
