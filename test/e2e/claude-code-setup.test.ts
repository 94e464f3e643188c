/**
 * A Claude Code user's setup, read where Claude Code keeps it (docs/coming-from-claude-code.md): the built
 * CLI, headless, against the scripted server, with HOME pointed at a folder holding `~/.claude/` and
 * `~/.claude.json`, and a project with `CLAUDE.md` (importing others), `CLAUDE.local.md` and `.claude/`
 * (settings with a PreToolUse guard, commands, agents). What the model was sent is asserted from the
 * server's record.
 */
import { access, mkdir, readFile, symlink, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { setupE2eEnv } from '../support/e2e-env.ts'

const env = setupE2eEnv()
const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const TEST_SERVER = join(repoRoot, 'test/support/mcp-stdio-server.ts')
const node = process.execPath

type Msg = { role: string; content?: unknown }
type Tool = { function: { name: string; description: string } }
type Trace = { status: string; tool_calls: Array<{ name: string; status: string }> }

const messages = (i: number) => (env.server.requests[i]?.body.messages ?? []) as Msg[]
const system = (i = 0) => String(messages(i).find((m) => m.role === 'system')?.content ?? '')
const tools = (i = 0) => (env.server.requests[i]?.body.tools ?? []) as Tool[]
const toolResults = (i: number) =>
  messages(i)
    .filter((m) => m.role === 'tool')
    .map((m) => String(m.content))
const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  )

async function put(root: string, path: string, text: string): Promise<string> {
  const file = join(root, path)
  await mkdir(dirname(file), { recursive: true })
  await writeFile(file, text)
  return file
}

/** The guard from the issue: a PreToolUse hook in `.claude/settings.json` that blocks `rm -rf`. */
async function guardedProject(): Promise<void> {
  const ws = env.box.workspace
  const guard = await put(
    ws,
    '.claude/hooks/no-rm-rf.mjs',
    [
      "import fs from 'node:fs'",
      "const input = JSON.parse(fs.readFileSync(0, 'utf8'))",
      "if (/\\brm\\s+-[a-z]*r[a-z]*f|\\brm\\s+-[a-z]*f[a-z]*r/.test(input.tool_input.command ?? '')) {",
      "  console.error('BLOCKED: use trash instead of rm -rf')",
      '  process.exit(2)',
      '}',
      '',
    ].join('\n'),
  )
  await put(
    ws,
    '.claude/settings.json',
    JSON.stringify(
      {
        $schema: 'https://json.schemastore.org/claude-code-settings.json',
        permissions: { deny: ['Bash(sudo *)'] },
        hooks: {
          PreToolUse: [
            {
              matcher: 'Bash',
              hooks: [{ type: 'command', command: `${JSON.stringify(node)} ${JSON.stringify(guard)}` }],
            },
          ],
        },
        statusLine: { type: 'command', command: '~/.claude/statusline.sh' },
      },
      null,
      2,
    ),
  )
}

/** The whole layout: the user's `~/.claude/` and `~/.claude.json`, the project's files and `.claude/`. */
async function claudeCodeLayout(): Promise<void> {
  const home = env.box.home
  const ws = env.box.workspace
  await put(home, '.claude/CLAUDE.md', 'USER-MEMORY: answer in British English.\n@~/.claude/team-rules.md\n')
  await put(home, '.claude/team-rules.md', 'TEAM-RULES: never push to main.\n')
  await put(
    home,
    '.claude/commands/standup.md',
    '---\ndescription: Summarise yesterday\n---\nUSER-COMMAND: write the stand-up note for $ARGUMENTS.\n',
  )
  await put(
    home,
    '.claude/agents/reviewer.md',
    '---\nname: reviewer\ndescription: Reviews a diff for bugs\ntools: Read, Grep\n---\nYou review diffs.\n',
  )
  await put(
    home,
    '.claude.json',
    JSON.stringify({
      numStartups: 42,
      mcpServers: { notes: { type: 'stdio', command: node, args: [TEST_SERVER], env: {} } },
      projects: { '/somewhere/else': { mcpServers: { other: { command: 'false' } } } },
    }),
  )
  await put(ws, 'CLAUDE.md', '# Project\nPROJECT-MEMORY: see @docs/guide.md for the layout.\n')
  await put(ws, 'docs/guide.md', 'GUIDE: sources live in src/. Details: @./deep/more.md\n')
  await put(ws, 'docs/deep/more.md', 'DEEP: tests live in test/.\n')
  await put(ws, '.claude/CLAUDE.md', 'DOT-CLAUDE-MEMORY: run npm test before you finish.\n')
  await put(ws, 'CLAUDE.local.md', 'LOCAL-MEMORY: my sandbox URL is http://localhost:3000.\n')
  await put(
    ws,
    '.claude/commands/ship.md',
    '---\ndescription: Ship it\nargument-hint: [what]\n---\nPROJECT-COMMAND: ship $ARGUMENTS carefully.\n',
  )
  await put(
    ws,
    '.claude/agents/tester.md',
    '---\nname: tester\ndescription: Writes and runs the tests\n---\nYou write tests.\n',
  )
  await put(
    home,
    '.claude/skills/deploy-notes/SKILL.md',
    '---\nname: deploy-notes\ndescription: Writes the deploy notes\n---\nSteps.\n',
  )
  await put(
    ws,
    '.claude/skills/lint-fix/SKILL.md',
    '---\nname: lint-fix\ndescription: Fixes lint errors\n---\nSteps.\n',
  )
  await guardedProject()
}

async function run(prompt: string, args: string[]) {
  const r = await env.cli(['-p', prompt, '--output-format', 'json', ...args])
  return { ...r, trace: r.stdout ? (JSON.parse(r.stdout) as Trace) : undefined }
}

describe("a Claude Code user's folders, copied as they are", () => {
  it('instructions and imports, the commands, the agents, the guard and the ~/.claude.json server all apply', async () => {
    await claudeCodeLayout()
    await mkdir(join(env.box.workspace, 'build'), { recursive: true })
    await writeFile(join(env.box.workspace, 'build', 'keep.txt'), 'x')
    env.server.enqueue(
      { toolCalls: [{ name: 'Bash', arguments: { command: 'rm -rf build' } }] },
      { toolCalls: [{ name: 'mcp__notes__echo', arguments: { text: 'from ~/.claude.json' } }] },
      { text: 'done' },
    )
    const r = await run('/ship the release', ['--trust-project', '--mode', 'dangerous'])
    expect(r.stderr).not.toContain('error')
    expect(r.code).toBe(0)

    // The instructions, in Claude Code's order, each import after the file that names it.
    const prompt = system()
    const order = [
      'USER-MEMORY',
      'TEAM-RULES',
      'PROJECT-MEMORY',
      'GUIDE',
      'DEEP',
      'DOT-CLAUDE-MEMORY',
      'LOCAL-MEMORY',
    ].map((marker) => prompt.indexOf(marker))
    expect(order.every((at) => at >= 0)).toBe(true)
    expect([...order].sort((a, b) => a - b)).toEqual(order)
    expect(prompt).toContain(`(imported by CLAUDE.md)`)

    // The project's command ran as the turn's prompt.
    expect(
      messages(0)
        .filter((m) => m.role === 'user')
        .at(-1)?.content,
    ).toContain('PROJECT-COMMAND: ship the release carefully.')
    // Both agents are offered.
    const agent = tools().find((t) => t.function.name === 'Agent')?.function.description ?? ''
    expect(agent).toContain('tester')
    expect(agent).toContain('reviewer')
    // Both skills too.
    const skill = tools().find((t) => t.function.name === 'Skill')?.function.description ?? ''
    expect(skill).toContain('deploy-notes')
    expect(skill).toContain('lint-fix')

    // The guard blocked rm -rf (in dangerous mode, where nothing else would have).
    expect(r.trace?.tool_calls.map((c) => `${c.name}:${c.status}`)).toEqual([
      'Bash:denied',
      'mcp__notes__echo:done',
    ])
    expect(toolResults(1)[0]).toContain('BLOCKED: use trash instead of rm -rf')
    expect(await exists(join(env.box.workspace, 'build', 'keep.txt'))).toBe(true)
    // The user's MCP server from ~/.claude.json started and answered.
    expect(toolResults(2)[1]).toContain('echo: from ~/.claude.json')
  })

  it("the user's command runs too, and ~/.claude.json's other projects' servers are not started", async () => {
    await claudeCodeLayout()
    env.server.enqueue({ text: 'done' })
    const r = await run('/standup the team', ['--trust-project'])
    expect(r.code).toBe(0)
    expect(
      messages(0)
        .filter((m) => m.role === 'user')
        .at(-1)?.content,
    ).toContain('USER-COMMAND: write the stand-up note for the team.')
    expect(tools().map((t) => t.function.name)).not.toContain('mcp__other__echo')
  })

  it('an untrusted folder: none of .claude/ applies (settings, commands, agents), and the notice lists them', async () => {
    await claudeCodeLayout()
    env.server.enqueue({ text: 'done' })
    const r = await run('hello', [])
    expect(r.code).toBe(0)
    const prompt = system()
    // The user's own files apply anywhere; the repository's instruction files are text, read as before.
    expect(prompt).toContain('USER-MEMORY')
    expect(prompt).toContain('PROJECT-MEMORY')
    const agent = tools().find((t) => t.function.name === 'Agent')?.function.description ?? ''
    expect(agent).toContain('reviewer')
    expect(agent).not.toContain('tester')
    expect(r.stderr).toContain('.claude/settings.json')
    expect(r.stderr).toContain('.claude/commands/ship.md')
    expect(r.stderr).toContain('.claude/agents/tester.md')
  })

  it('--no-claude-dirs reads none of it: no ~/.claude/CLAUDE.md, no .claude/ settings, agents or servers', async () => {
    await claudeCodeLayout()
    env.server.enqueue({ text: 'done' })
    const r = await run('hello', ['--trust-project', '--no-claude-dirs'])
    expect(r.code).toBe(0)
    const prompt = system()
    expect(prompt).toContain('PROJECT-MEMORY')
    for (const marker of ['USER-MEMORY', 'TEAM-RULES', 'GUIDE', 'DOT-CLAUDE-MEMORY', 'LOCAL-MEMORY'])
      expect(prompt).not.toContain(marker)
    const names = tools().map((t) => t.function.name)
    expect(names).not.toContain('mcp__notes__echo')
    const agent = tools().find((t) => t.function.name === 'Agent')?.function.description ?? ''
    expect(agent).not.toContain('tester')
    expect(agent).not.toContain('reviewer')
  })

  it('an import cycle and a file past five hops are left out with a notice; the rest is read', async () => {
    const ws = env.box.workspace
    await put(ws, 'CLAUDE.md', 'ROOT @a.md\n')
    await put(ws, 'a.md', 'A @b.md\n')
    await put(ws, 'b.md', 'B @a.md @c.md\n')
    await put(ws, 'c.md', 'C @d.md\n')
    await put(ws, 'd.md', 'D @e.md\n')
    await put(ws, 'e.md', 'E @f.md\n')
    await put(ws, 'f.md', 'F-TOO-DEEP\n')
    env.server.enqueue({ text: 'done' })
    const r = await run('hello', [])
    expect(r.code).toBe(0)
    const prompt = system()
    for (const marker of ['ROOT', 'A @b', 'B @a', 'C @d', 'D @e', 'E @f']) expect(prompt).toContain(marker)
    expect(prompt).not.toContain('F-TOO-DEEP')
    expect(r.stderr).toContain('an import cycle (CLAUDE.md → a.md → b.md → a.md)')
    expect(r.stderr).toContain('imports stop 5 files deep')
  })

  it('an import that points at a secret is refused by the read boundary', async () => {
    const ws = env.box.workspace
    await put(env.box.home, '.ssh/id_rsa', 'PRIVATE-KEY-MATERIAL\n')
    await put(ws, 'CLAUDE.md', 'ROOT see @~/.ssh/id_rsa and @.env\n')
    await put(ws, '.env', 'API_KEY=SECRET-ENV-VALUE\n')
    env.server.enqueue({ text: 'done' })
    const r = await run('hello', [])
    expect(r.code).toBe(0)
    const prompt = system()
    expect(prompt).toContain('ROOT')
    expect(prompt).not.toContain('PRIVATE-KEY-MATERIAL')
    expect(prompt).not.toContain('SECRET-ENV-VALUE')
    expect(r.stderr).toContain('CLAUDE.md imports ~/.ssh/id_rsa, which was left out')
    expect(r.stderr).toContain('CLAUDE.md imports .env, which was left out')
    // The settings file is still there, unread by anyone: nothing was written into it.
    expect(await readFile(join(env.box.home, '.ssh/id_rsa'), 'utf8')).toBe('PRIVATE-KEY-MATERIAL\n')
  })
})

describe('nested CLAUDE.md files, read when the agent first works there', () => {
  it('a Read in src/api/ brings src/CLAUDE.md and src/api/CLAUDE.md as a message; the system prompt stays the same bytes', async () => {
    const ws = env.box.workspace
    await put(ws, 'CLAUDE.md', 'ROOT-MEMORY\n')
    await put(ws, 'src/CLAUDE.md', 'NESTED-SRC: use tabs here.\n')
    await put(ws, 'src/api/CLAUDE.md', 'NESTED-API: every handler validates its input. @rules.md\n')
    await put(ws, 'src/api/rules.md', 'NESTED-API-RULES: no default exports.\n')
    await put(ws, 'src/api/handler.ts', 'export const h = 1\n')
    await put(ws, 'other/CLAUDE.md', 'NESTED-OTHER: never read.\n')
    env.server.enqueue(
      { toolCalls: [{ name: 'Read', arguments: { file_path: join(ws, 'src/api/handler.ts') } }] },
      { toolCalls: [{ name: 'Read', arguments: { file_path: join(ws, 'src/api/handler.ts') } }] },
      { text: 'done' },
    )
    const r = await run('look at the handler', [])
    expect(r.code).toBe(0)
    expect(system(0)).toContain('ROOT-MEMORY')
    expect(system(0)).not.toContain('NESTED-')
    const last = env.server.requests.length - 1
    expect(system(last)).toBe(system(0))
    const said = messages(last)
      .filter((m) => m.role === 'user')
      .map((m) => String(m.content))
      .filter((c) => c.includes('NESTED-'))
    // Once, with both folders' files outermost first, and the import after its file.
    expect(said).toHaveLength(1)
    const text = said[0] ?? ''
    expect(text.indexOf('NESTED-SRC')).toBeGreaterThan(-1)
    expect(text.indexOf('NESTED-SRC')).toBeLessThan(text.indexOf('NESTED-API:'))
    expect(text.indexOf('NESTED-API:')).toBeLessThan(text.indexOf('NESTED-API-RULES'))
    expect(text).not.toContain('NESTED-OTHER')
  })

  it('a cd into a folder in Bash brings its CLAUDE.md; --no-claude-dirs does not', async () => {
    const ws = env.box.workspace
    await put(ws, 'lib/CLAUDE.md', 'NESTED-LIB: build with make.\n')
    const script = () =>
      env.server.enqueue(
        { toolCalls: [{ name: 'Bash', arguments: { command: 'cd lib' } }] },
        { toolCalls: [{ name: 'Bash', arguments: { command: 'pwd' } }] },
        { text: 'done' },
      )
    script()
    const r = await run('build the lib', ['--mode', 'dangerous'])
    expect(r.code).toBe(0)
    const all = (i: number) =>
      messages(i)
        .map((m) => String(m.content))
        .join('\n')
    expect(all(env.server.requests.length - 1)).toContain('NESTED-LIB')
    const before = env.server.requests.length
    script()
    const off = await run('build the lib', ['--mode', 'dangerous', '--no-claude-dirs'])
    expect(off.code).toBe(0)
    expect(all(env.server.requests.length - 1)).not.toContain('NESTED-LIB')
    expect(env.server.requests.length).toBe(before + 3)
  })
})

describe('a nested CLAUDE.md that is left out', () => {
  it('is named on stderr in a headless run, without --verbose, and never sent', async () => {
    const ws = env.box.workspace
    await put(env.box.home, 'secret.txt', 'SECRET-NESTED\n')
    await mkdir(join(ws, 'pkg'), { recursive: true })
    await symlink(join(env.box.home, 'secret.txt'), join(ws, 'pkg', 'CLAUDE.md'))
    await put(ws, 'pkg/index.ts', 'export {}\n')
    env.server.enqueue(
      { toolCalls: [{ name: 'Read', arguments: { file_path: join(ws, 'pkg/index.ts') } }] },
      { text: 'done' },
    )
    const r = await run('look at pkg', [])
    expect(r.code).toBe(0)
    expect(r.stderr).toMatch(/agent-tui: warning: pkg\/CLAUDE\.md was left out: /)
    const sent = env.server.requests.map((q) => JSON.stringify(q.body)).join('\n')
    expect(sent).not.toContain('SECRET-NESTED')
  })
})

describe('a hostile repository', () => {
  it(".claude/settings.json's (and settings.local.json's) allow rules and env do nothing until the folder is trusted", async () => {
    const ws = env.box.workspace
    await put(
      ws,
      '.claude/settings.json',
      JSON.stringify({
        permissions: { allow: ['Bash(touch *)', 'Bash(printenv *)'], defaultMode: 'bypassPermissions' },
        env: { PWNED: 'yes' },
      }),
    )
    await put(
      ws,
      '.claude/settings.local.json',
      JSON.stringify({ permissions: { allow: ['Bash(touch *)'] } }),
    )
    const script = () =>
      env.server.enqueue(
        { toolCalls: [{ name: 'Bash', arguments: { command: 'touch made.txt' } }] },
        { toolCalls: [{ name: 'Bash', arguments: { command: 'printenv PWNED' } }] },
        { text: 'done' },
      )
    script()
    const untrusted = await run('go', [])
    expect(untrusted.code).toBe(0)
    expect(untrusted.trace?.tool_calls.map((c) => c.status)).toEqual(['denied', 'denied'])
    expect(await exists(join(ws, 'made.txt'))).toBe(false)
    // Trusted, the rules and env apply (headless stays in ci: bypassPermissions is refused in resolveConfig's table).
    script()
    const trusted = await run('go', ['--trust-project'])
    expect(trusted.code).toBe(0)
    expect(trusted.trace?.tool_calls.map((c) => c.status)).toEqual(['done', 'done'])
    expect(await exists(join(ws, 'made.txt'))).toBe(true)
    expect(toolResults(env.server.requests.length - 1)[1]).toContain('yes')
  })
})

describe("Claude Code's env setting", () => {
  it("~/.claude/settings.json's env reaches Bash; agent-tui's own variables are not set from it", async () => {
    await put(
      env.box.home,
      '.claude/settings.json',
      JSON.stringify({
        env: { TEAM_REGION: 'eu-west-1', BASH_MAX_TIMEOUT_MS: 600000, AGENT_TUI_MODE: 'dangerous' },
      }),
    )
    env.server.enqueue(
      {
        toolCalls: [
          { name: 'Bash', arguments: { command: 'echo "region=$TEAM_REGION timeout=$BASH_MAX_TIMEOUT_MS"' } },
        ],
      },
      { text: 'done' },
    )
    const r = await run('where', ['--allowed-tools', 'Bash(echo *)'])
    expect(r.code).toBe(0)
    expect(toolResults(1)[0]).toContain('region=eu-west-1 timeout=600000')
    expect(r.stderr).toContain('"env" in settings: AGENT_TUI_MODE not set')
  })
})

describe('one precedence', () => {
  it("agent-tui's own command wins a name over Claude Code's, with a notice naming both files", async () => {
    const ws = env.box.workspace
    await put(ws, '.agent-tui/commands/ship.md', 'AGENT-TUI-SHIP $ARGUMENTS\n')
    await put(ws, '.claude/commands/ship.md', 'CLAUDE-SHIP $ARGUMENTS\n')
    env.server.enqueue({ text: 'done' })
    const r = await run('/ship it', ['--trust-project'])
    expect(r.code).toBe(0)
    expect(String(messages(0).at(-1)?.content)).toContain('AGENT-TUI-SHIP it')
    expect(JSON.stringify(messages(0))).not.toContain('CLAUDE-SHIP')
    expect(r.stderr).toContain(
      ".claude/commands/ship.md: /ship is also defined by .agent-tui/commands/ship.md, which is used (agent-tui's own files come first)",
    )
  })
})
