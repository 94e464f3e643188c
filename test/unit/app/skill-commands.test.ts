/**
 * Skills as slash commands (as in Claude Code): each skill of the session is `/name` in the command table
 * unless a command has the name, and `/name args` sends the skill's instructions with the arguments.
 */
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { resolvePaths } from '../../../source/config/app-paths.js'
import { boundaryReaders } from '../../../source/app/session/instruction-readers.js'
import { installUserCommands } from '../../../source/app/session/load-commands.js'
import { loadSessionSkills, skillCommands, skillListing } from '../../../source/app/session/skills.js'
import { BUILTIN_COMMANDS } from '../../../source/ui/commands/builtin-commands.js'
import { createCommandTable } from '../../../source/ui/commands/command-table.js'

let root: string
beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'agent-tui-skill-commands-')))
})
afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

async function write(path: string, text: string) {
  await mkdir(dirname(join(root, path)), { recursive: true })
  await writeFile(join(root, path), text)
}

async function setUp() {
  const home = join(root, 'home')
  const workspace = join(root, 'ws')
  await mkdir(workspace, { recursive: true })
  const paths = resolvePaths({ HOME: home })
  const read = boundaryReaders({
    workspace,
    home,
    additionalDirs: [],
    appDirs: [paths.configDir],
    config: { rules: { allow: [], ask: [], deny: [] } },
  })
  const skills = await loadSessionSkills({ paths, workspace, home, read })
  const table = createCommandTable(BUILTIN_COMMANDS)
  const reports: string[] = []
  await installUserCommands({
    table,
    paths,
    workspace,
    home,
    read,
    skills: skillCommands(skills, read.skill),
    report: (text, level) => reports.push(`${level}: ${text}`),
  })
  return { table, reports, skills }
}

const LONG = `Builds apps with the Claude API. ${'Use it when the code imports anthropic. '.repeat(40)}`

it('a skill runs as /name: its instructions, its folder and the arguments reach the model as the turn', async () => {
  await write(
    'home/.config/agent-tui/skills/release-notes/SKILL.md',
    `---\nname: release-notes\ndescription: ${LONG}\nargument-hint: <version>\n---\n# Notes\nWrite the notes for the version given.\n`,
  )
  await write('home/.config/agent-tui/skills/release-notes/template.md', 'T')
  const { table } = await setUp()
  const entry = table.find('release-notes')
  expect(entry?.argumentHint).toBe('<version>')
  expect(entry?.source).toBe('skill:user')
  // Completion and /help show one line of the long description.
  expect(entry?.description.length).toBeLessThan(100)
  const input = await entry?.prompt?.('2.1.0')
  expect(input?.text).toBe('/release-notes 2.1.0')
  const parts = input?.command?.parts ?? []
  expect(parts.every((p) => p.kind === 'text')).toBe(true)
  const text = parts.map((p) => (p.kind === 'text' ? p.text : '')).join('')
  expect(text).toContain('Skill "release-notes" loaded.')
  expect(text).toContain('Files: template.md')
  expect(text).toContain('# Notes\nWrite the notes for the version given.')
  expect(text).not.toContain('argument-hint')
  expect(text.endsWith('ARGUMENTS: 2.1.0')).toBe(true)
  expect(input?.command?.allowedTools).toEqual([])
})

it('/name renders the skill as a command: $ARGUMENTS and $0 put in, !`…` and a ```! block cut out to run; its folder lines stay text', async () => {
  await write(
    'home/.config/agent-tui/skills/ctxskill/SKILL.md',
    '---\nname: ctxskill\ndescription: Context\n---\nCheck version $ARGUMENTS first=$0\n!`git status --short`\n```!\ngit log -1 $0\n```\nDone\n',
  )
  const { table } = await setUp()
  const input = await table.find('ctxskill')?.prompt?.('v2.4.0 extra')
  const parts = input?.command?.parts ?? []
  expect(parts.filter((p) => p.kind === 'shell')).toEqual([
    { kind: 'shell', command: 'git status --short' },
    { kind: 'shell', command: 'git log -1 v2.4.0' },
  ])
  const text = parts.map((p) => (p.kind === 'text' ? p.text : '')).join('')
  expect(text).toContain('Skill "ctxskill" loaded.')
  expect(text).toContain('Check version v2.4.0 extra first=v2.4.0\n')
  expect(text).not.toContain('$ARGUMENTS')
  expect(text).not.toContain('ARGUMENTS: ')
  expect(input?.command?.name).toBe('ctxskill')
  expect(input?.command?.allowedTools).toEqual([])
})

it('a command of the same name keeps /name (said once); the skill is still listed by /skills, whole', async () => {
  await write('home/.config/agent-tui/commands/deploy.md', '---\ndescription: my deploy\n---\nDeploy')
  await write(
    'home/.config/agent-tui/skills/deploy/SKILL.md',
    '---\nname: deploy\ndescription: Deploy skill\n---\nx',
  )
  await write('home/.config/agent-tui/skills/help/SKILL.md', `---\nname: help\ndescription: ${LONG}\n---\nx`)
  const { table, reports, skills } = await setUp()
  expect(table.find('deploy')?.description).toBe('my deploy (user)')
  expect(table.find('help')?.source).toBeUndefined()
  expect(reports).toEqual([
    'info: ~/.config/agent-tui/skills/deploy/SKILL.md: /deploy is taken by a command; the skill is not runnable as /deploy (the agent can still load it)',
    'info: ~/.config/agent-tui/skills/help/SKILL.md: /help is taken by a command; the skill is not runnable as /help (the agent can still load it)',
  ])
  const listing = skillListing(skills)
  expect(listing.skills.map((s) => s.name)).toEqual(['deploy', 'help'])
  expect(listing.skills[1]?.description).toBe(LONG.trim())
})
