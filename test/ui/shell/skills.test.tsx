import { expect, it } from 'vitest'
import type { SkillListing } from '../../../source/agent/runtime/commands.js'
import { createTheme } from '../../../source/ui/components/theme.js'
import { TuiRoot } from '../../../source/ui/tui-root.js'
import { fakeCommands, KEYS, makeStore, renderSized, waitFor } from './helpers.js'

const theme = createTheme({ level: 0 })
const LONG = `Reference for the Claude API. ${'Use it whenever the code imports the SDK. '.repeat(30)}`.trim()

const listing: SkillListing = {
  skills: [
    {
      name: 'claude-api',
      description: LONG,
      source: 'user',
      file: '~/.config/agent-tui/skills/claude-api/SKILL.md',
    },
  ],
  problems: [
    '.agent-tui/skills/bad/SKILL.md: description: missing: say what the skill does and when to use it',
  ],
}

it('/skills lists every skill with its whole description, where it comes from, and the files with problems', async () => {
  const store = makeStore()
  const commands = fakeCommands({ store, skills: listing })
  const r = renderSized(
    <TuiRoot
      store={store}
      commands={commands}
      contextLimit={100_000}
      theme={theme}
      onExit={() => undefined}
    />,
    120,
    60,
  )
  r.stdin.write('/skills')
  await waitFor(() => r.frame().includes('/skills'), r.frame)
  r.stdin.write(KEYS.enter)
  await waitFor(() => r.frame().includes('Skill files with problems'), r.frame)
  const frame = r.frame().replace(/\s+/g, ' ')
  expect(commands.named('listSkills')).toHaveLength(1)
  // The end of the long description is there too: /skills never shortens it.
  expect(frame).toContain('Use it whenever the code imports the SDK. Use it')
  expect(frame).toContain('user · ~/.config/agent-tui/skills/claude-api/SKILL.md · /claude-api runs it')
  expect(frame).toContain('.agent-tui/skills/bad/SKILL.md: description: missing')
  r.instance.unmount()
})
