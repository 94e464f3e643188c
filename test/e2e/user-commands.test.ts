/**
 * User-defined slash commands and skills end to end: the built CLI against the scripted server, in a real
 * git checkout. A project command (`.agent-tui/commands/review.md`) with `$ARGUMENTS`, `` !`git diff --stat` ``
 * and `@file` runs headless (`-p "/review src"`) and in the TUI, where a command that needs approval asks
 * through the consent prompt; a skill in the user's config dir is offered in the Skill tool, loaded and
 * its files read.
 */
import { execFileSync } from 'node:child_process'
import { access, mkdir, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { setupE2eEnv } from '../support/e2e-env.ts'
import { keys, PROMPT, startTui, type TuiSession } from '../support/pty-terminal.ts'
import type { RecordedRequest } from '../support/scripted-server.ts'

const env = setupE2eEnv()

const REVIEW = `---
description: Review the uncommitted changes
argument-hint: [path]
allowed-tools: Bash(git diff *)
---
Review the changes in $ARGUMENTS.

Diff stat:
!\`git diff --stat\`

The style guide is @docs/style.md.
`

async function write(path: string, text: string): Promise<void> {
  const file = join(env.box.workspace, path)
  await mkdir(dirname(file), { recursive: true })
  await writeFile(file, text)
}

/** A git checkout with one committed file changed since, and the project's commands. */
async function repoWithChange(commands: Record<string, string>): Promise<void> {
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
      cwd: env.box.workspace,
      stdio: 'pipe',
    })
  git('init', '-q')
  await write('src/app.ts', 'export const a = 1\n')
  await write('docs/style.md', 'Tabs, never spaces.\n')
  git('add', '-A')
  git('commit', '-q', '-m', 'start')
  await write('src/app.ts', 'export const a = 2\nexport const b = 3\n')
  for (const [name, text] of Object.entries(commands)) await write(join('.agent-tui', 'commands', name), text)
}

type Message = { role: string; content: unknown; tool_call_id?: string }
const messages = (request: RecordedRequest | undefined) => (request?.body.messages ?? []) as Message[]
const lastUser = (request: RecordedRequest | undefined) =>
  messages(request).findLast((m) => m.role === 'user')?.content
const toolResults = (request: RecordedRequest | undefined) =>
  messages(request)
    .filter((m) => m.role === 'tool')
    .map((m) => String(m.content))

describe('headless: -p "/review src"', () => {
  it('in a trusted folder runs the command: its git diff --stat (allowed by its allowed-tools) and file reach the model', async () => {
    await repoWithChange({ 'review.md': REVIEW })
    env.server.enqueue({ text: 'Looks fine.' })
    const r = await env.cli(['-p', '/review src', '--trust-project'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toBe('Looks fine.\n')
    const sent = String(lastUser(env.server.requests[0]))
    expect(sent).toContain('Review the changes in src.\n\nDiff stat:\n src/app.ts | 3 ++-\n 1 file changed')
    expect(sent).toContain('The style guide is @docs/style.md.')
    expect(sent).toContain('<file path="docs/style.md">\n     1\tTabs, never spaces.\n</file>')
    expect(sent).not.toContain('!`')
  })

  it('untrusted, the project command does not exist; the user gets told why and exits 2', async () => {
    await repoWithChange({ 'review.md': REVIEW })
    const r = await env.cli(['-p', '/review src'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('command /review (.agent-tui/commands/review.md)')
    expect(r.stderr).toContain('agent-tui: unknown command /review; commands that run here: /init')
    expect(env.server.requests).toHaveLength(0)
  })

  it('a shell command the rules do not allow is denied in ci: nothing is sent, exit 1, and stderr names the rule', async () => {
    await repoWithChange({ 'stamp.md': 'Stamp: !`touch stamped.txt`' })
    const r = await env.cli(['-p', '/stamp', '--trust-project'])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('/stamp: `touch stamped.txt` did not run: Bash denied')
    expect(r.stderr).toContain('add Bash(touch stamped.txt) to allowed-tools in .agent-tui/commands/stamp.md')
    expect(env.server.requests).toHaveLength(0)
    await expect(access(join(env.box.workspace, 'stamped.txt'))).rejects.toThrow()
  })

  it("the user's own commands need no trust; a bad file is named with its field and the others still run", async () => {
    const commands = join(env.box.env.XDG_CONFIG_HOME ?? '', 'agent-tui', 'commands')
    await mkdir(join(commands, 'notes'), { recursive: true })
    await writeFile(join(commands, 'notes', 'summarize.md'), 'Summarize $0 in $1 words.')
    await writeFile(join(commands, 'broken.md'), '---\nallowed-tools: Bash(git\n---\nx')
    env.server.enqueue({ text: 'Summary.' })
    const r = await env.cli(['-p', '/summarize README.md 50'])
    expect(r.code).toBe(0)
    expect(r.stderr).toBe(
      'agent-tui: warning: ~/.config/agent-tui/commands/broken.md: allowed-tools: rule "Bash(git" must end with ")" (form: Tool(specifier))\n',
    )
    expect(lastUser(env.server.requests[0])).toBe('Summarize README.md in 50 words.')
  })
})

describe('skills', () => {
  it('a skill is offered in the Skill tool, loaded on demand, and its files are read without asking', async () => {
    const dir = join(env.box.env.XDG_CONFIG_HOME ?? '', 'agent-tui', 'skills', 'changelog')
    await mkdir(dir, { recursive: true })
    await writeFile(
      join(dir, 'SKILL.md'),
      '---\nname: changelog\ndescription: Write changelog entries in the house style\n---\n# Changelog\n\nFollow template.md exactly.\n',
    )
    await writeFile(join(dir, 'template.md'), '## [version] - date\n### Added\n')
    await mkdir(join(dir, '..', 'broken'), { recursive: true })
    // No description and no body to take one from (a missing name would be the folder's, as in Claude Code).
    await writeFile(join(dir, '..', 'broken', 'SKILL.md'), '---\nname: broken\n---\n')
    env.server.enqueue(
      { toolCalls: [{ name: 'Skill', arguments: { skill: 'changelog' } }] },
      { toolCalls: [{ name: 'Read', arguments: { file_path: join(dir, 'template.md') } }] },
      { text: 'Entry written.' },
    )
    const r = await env.cli(['-p', 'add a changelog entry', '--output-format', 'json'])
    expect(r.code).toBe(0)
    expect(r.stderr).toContain(
      'agent-tui: warning: ~/.config/agent-tui/skills/broken/SKILL.md: description: missing: say what the skill does and when to use it',
    )
    const trace = JSON.parse(r.stdout) as {
      result: string
      tool_calls: Array<{ name: string; status: string }>
    }
    expect(trace.result).toBe('Entry written.')
    expect(trace.tool_calls.map((c) => `${c.name} ${c.status}`)).toEqual(['Skill done', 'Read done'])
    const [first, second, third] = env.server.requests
    const tools = (first?.body.tools ?? []) as Array<{ function: { name: string; description: string } }>
    const skillTool = tools.find((t) => t.function.name === 'Skill')
    expect(skillTool?.function.description).toContain(
      '<skill name="changelog">Write changelog entries in the house style</skill>',
    )
    expect(skillTool?.function.description).not.toContain('broken')
    // Byte-stable: the same definitions with every request.
    expect(JSON.stringify(third?.body.tools)).toBe(JSON.stringify(first?.body.tools))
    expect(toolResults(second)[0]).toContain('# Changelog\n\nFollow template.md exactly.')
    expect(toolResults(third)[1]).toContain('## [version] - date')
  })
})

/** The screen with wrapped lines joined again. */
const unwrapped = (screen: string) => screen.replace(/\n {2}/g, ' ')

describe('TUI', () => {
  let tui: TuiSession | undefined
  afterEach(async () => {
    await tui?.kill()
    tui = undefined
  })

  it('after the folder is trusted: /review is completed and runs, its touch asks through the consent prompt, and a project skill is announced', async () => {
    await repoWithChange({
      'review.md': REVIEW.replace('Diff stat:', 'Stamp: !`touch reviewed.txt`\n\nDiff stat:'),
    })
    await write(
      '.agent-tui/skills/release/SKILL.md',
      '---\nname: release\ndescription: Cut a release of this project\n---\nSteps.\n',
    )
    await write('.agent-tui/commands/broken.md', '---\nmodel: [a, b]\n---\nx')
    await write('.agent-tui/skills/nameless/SKILL.md', '---\nname: nameless\n---\n')
    env.server.enqueue({ text: 'Reviewed it.' })
    tui = startTui({
      args: ['--base-url', env.server.baseUrl, '--model', 'm'],
      cwd: env.box.workspace,
      env: env.box.env,
      cols: 110,
      rows: 32,
    })
    const trustPrompt = await tui.waitFor('Do you trust')
    expect(trustPrompt).toContain('/review')
    expect(trustPrompt).toContain('release')
    tui.write('1')
    await tui.waitFor((screen) =>
      unwrapped(screen).includes('Now available: commands /broken, /review; skills nameless, release.'),
    )
    await tui.waitFor('skills available now: release (the agent is told at its next step)')
    // The files that cannot be used are named, with the field at fault.
    await tui.waitFor('.agent-tui/skills/nameless/SKILL.md: description: missing')
    await tui.waitFor('.agent-tui/commands/broken.md: model: expected a model id')
    await tui.waitFor((screen) => !screen.includes('Do you trust') && screen.includes(`${PROMPT} Message`))
    tui.write('/rev')
    await tui.waitFor('/review  [path]  Review the uncommitted changes (project)')
    tui.write(keys.tab)
    await tui.waitFor(`${PROMPT}/review `)
    tui.write('src')
    await tui.waitFor(`${PROMPT}/review src`)
    tui.write(keys.enter)
    const consent = await tui.waitFor('$ touch reviewed.txt')
    expect(consent).toContain('Allow once')
    tui.write('y')
    await tui.waitFor('Reviewed it.')
    await access(join(env.box.workspace, 'reviewed.txt'))
    const screen = tui.screen()
    expect(screen).toContain('› /review src')
    expect(screen).toContain(
      '/review (.agent-tui/commands/review.md): ran `touch reviewed.txt`, `git diff --stat`',
    )
    const request = env.server.requests[0]
    const users = messages(request)
      .filter((m) => m.role === 'user')
      .map((m) => String(m.content))
    expect(users.some((u) => u.includes('Review the changes in src.') && u.includes('1 file changed'))).toBe(
      true,
    )
    expect(
      users.some((u) => u.startsWith('New skills are available') && u.includes('- release: Cut a release')),
    ).toBe(true)
    const tools = (request?.body.tools ?? []) as Array<{ function: { name: string; description: string } }>
    const skill = tools.find((t) => t.function.name === 'Skill')?.function.description ?? ''
    // Offered at start (none yet, more may come); the project's arrived later, in the conversation.
    expect(skill).toContain('No skills are available yet.')
    expect(skill).not.toContain('release')
  })

  it('a command given on the command line runs once the commands are loaded', async () => {
    const commands = join(env.box.env.XDG_CONFIG_HOME ?? '', 'agent-tui', 'commands')
    await mkdir(commands, { recursive: true })
    await writeFile(join(commands, 'greet.md'), 'Say hello to $0.')
    env.server.enqueue({ text: 'Hello, Ada!' })
    tui = startTui({
      args: ['--base-url', env.server.baseUrl, '--model', 'm', '/greet Ada'],
      cwd: env.box.workspace,
      env: env.box.env,
      cols: 100,
      rows: 24,
    })
    await tui.waitFor('Hello, Ada!')
    expect(tui.screen()).toContain('› /greet Ada')
    expect(lastUser(env.server.requests[0])).toBe('Say hello to Ada.')
  })
})
