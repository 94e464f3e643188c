// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${CLAUDE_PLUGIN_ROOT}` is Claude Code's placeholder, not a template
/**
 * Plugins end to end (docs/plugins.md): Anthropic's own Claude Code plugins, committed byte for byte under
 * test/fixtures/claude-code/, installed with `agent-tui plugin add` as a user would (from the folder, from
 * the marketplace file, and from a local bare git repository — never the network), then used headless
 * against the scripted server, which records what the model was offered.
 */
import { execFileSync } from 'node:child_process'
import { access, mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { setupE2eEnv } from '../support/e2e-env.ts'
import { repoRoot, runCli } from '../support/run-cli.ts'

const env = setupE2eEnv()
const OFFICIAL = join(repoRoot, 'test/fixtures/claude-code/anthropics-claude-plugins-official')
const TEST_SERVER = join(repoRoot, 'test/support/mcp-stdio-server.ts')

type Msg = { role: string; content?: unknown }
const messages = (i: number) => (env.server.requests[i]?.body.messages ?? []) as Msg[]
const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  )

/** `agent-tui plugin …` in the sandbox. */
function plugin(...args: string[]) {
  return runCli(['plugin', ...args], { cwd: env.box.workspace, env: env.box.env, timeoutMs: 30_000 })
}

function git(cwd: string, ...args: string[]) {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, stdio: 'pipe' })
    .toString()
    .trim()
}

describe('plugins in Claude Code’s format', () => {
  it('installed from the marketplace and a folder, they load only once enabled: the namespaced command runs, the PreToolUse hook fires with CLAUDE_PLUGIN_ROOT', async () => {
    git(env.box.workspace, 'init', '-q', '-b', 'feature-x')
    await writeFile(join(env.box.workspace, 'a.txt'), 'x')
    git(env.box.workspace, 'add', '-A')
    git(env.box.workspace, 'commit', '-q', '-m', 'first')
    const market = await plugin('marketplace', 'add', OFFICIAL)
    expect(market.code).toBe(0)
    expect(market.stdout).toContain('Added marketplace claude-plugins-official')
    const commit = await plugin('add', 'commit-commands@claude-plugins-official', '--enable')
    expect(commit.code).toBe(0)
    expect(commit.stdout).toContain(
      'commands: /commit-commands:clean_gone, /commit-commands:commit, /commit-commands:commit-push-pr',
    )
    const security = await plugin('add', join(OFFICIAL, 'plugins/security-guidance'))
    expect(security.code).toBe(0)
    // What it brings is said before anything of it runs; installed, it waits to be enabled.
    expect(security.stdout).toContain(
      'hook PreToolUse (Edit|Write|MultiEdit): python3 "${CLAUDE_PLUGIN_ROOT}/hooks/security_reminder_hook.py" — runs outside the sandbox',
    )
    expect(security.stdout).toContain('agent-tui plugin enable security-guidance')

    const write = {
      toolCalls: [{ name: 'Write', arguments: { file_path: 'run.js', content: 'eval(input)\n' } }],
    }
    env.server.enqueue(write, { text: 'written' })
    const before = await env.cli(['-p', 'go', '--mode', 'dangerous'])
    expect(before.code).toBe(0)
    expect(await exists(join(env.box.workspace, 'run.js'))).toBe(true)

    expect((await plugin('enable', 'security-guidance')).code).toBe(0)
    const list = await plugin('list')
    expect(list.stdout).toContain('security-guidance  enabled')
    expect(list.stdout).toContain('commit-commands  enabled  from commit-commands@claude-plugins-official')

    env.server.enqueue(
      { toolCalls: [{ name: 'Write', arguments: { file_path: 'b.js', content: 'eval(x)\n' } }] },
      {
        text: 'committed',
      },
    )
    const r = await env.cli(['-p', '/commit-commands:commit', '--mode', 'dangerous'])
    expect(r.code).toBe(0)
    // The command's `!` lines ran: the prompt holds the repository's branch.
    const prompt = String(messages(2).find((m) => m.role === 'user')?.content)
    expect(prompt).toContain('Current branch: feature-x')
    expect(prompt).toContain('create a single git commit')
    // The plugin's hook ran (its script found through CLAUDE_PLUGIN_ROOT) and blocked the eval.
    const result = String(messages(3).find((m) => m.role === 'tool')?.content)
    expect(result).toContain('eval() executes arbitrary code')
    expect(await exists(join(env.box.workspace, 'b.js'))).toBe(false)

    // The bare name works too while no other command has it.
    env.server.enqueue({ text: 'ok' })
    expect((await env.cli(['-p', '/commit', '--mode', 'dangerous'])).code).toBe(0)
    expect(String(messages(4).find((m) => m.role === 'user')?.content)).toContain('Current branch: feature-x')

    expect((await plugin('disable', 'commit-commands')).code).toBe(0)
    const gone = await env.cli(['-p', '/commit-commands:commit'])
    expect(gone.code).not.toBe(0)
    expect(gone.stderr).toContain('/commit-commands:commit')
  })

  it("a repository's enabledPlugins turn an installed plugin on only in a trusted folder", async () => {
    expect((await plugin('add', join(OFFICIAL, 'plugins/security-guidance'))).code).toBe(0)
    await mkdir(join(env.box.workspace, '.agent-tui'), { recursive: true })
    await writeFile(
      join(env.box.workspace, '.agent-tui', 'settings.json'),
      JSON.stringify({ enabledPlugins: { 'security-guidance@claude-plugins-official': true } }),
    )
    git(env.box.workspace, 'init', '-q')
    git(env.box.workspace, 'add', '-A')
    git(env.box.workspace, 'commit', '-q', '-m', 'settings')
    const write = (file: string) => ({
      toolCalls: [{ name: 'Write', arguments: { file_path: file, content: 'eval(x)\n' } }],
    })
    env.server.enqueue(write('a.js'), { text: 'done' }, write('b.js'), { text: 'done' })
    const untrusted = await env.cli(['-p', 'go', '--mode', 'dangerous'])
    expect(untrusted.code).toBe(0)
    expect(untrusted.stderr).toContain('"enabledPlugins": security-guidance@claude-plugins-official')
    expect(await exists(join(env.box.workspace, 'a.js'))).toBe(true)
    const trusted = await env.cli(['-p', 'go', '--mode', 'dangerous', '--trust-project'])
    expect(trusted.code).toBe(0)
    expect(String(messages(3).find((m) => m.role === 'tool')?.content)).toContain(
      'eval() executes arbitrary code',
    )
    expect(await exists(join(env.box.workspace, 'b.js'))).toBe(false)
  })

  it("an enabled plugin's agents are offered to the model", async () => {
    expect((await plugin('add', join(OFFICIAL, 'plugins/pr-review-toolkit'), '--enable')).code).toBe(0)
    env.server.enqueue({ text: 'done' })
    expect((await env.cli(['-p', 'go'])).code).toBe(0)
    const tools = (env.server.requests[0]?.body.tools ?? []) as Array<{
      function: { name: string; description: string }
    }>
    const agent = tools.find((t) => t.function.name === 'Agent')
    expect(agent?.function.description).toContain('code-reviewer')
    expect(agent?.function.description).toContain('silent-failure-hunter')
  })

  it('installed from a git URL (a local bare repository), its MCP server starts with ${CLAUDE_PLUGIN_ROOT} put in', async () => {
    const src = join(env.box.root, 'echo-plugin')
    await mkdir(join(src, '.claude-plugin'), { recursive: true })
    await writeFile(
      join(src, '.claude-plugin', 'plugin.json'),
      JSON.stringify({ name: 'echo-tools', version: '0.1.0' }),
    )
    await writeFile(
      join(src, '.mcp.json'),
      JSON.stringify({
        mcpServers: {
          echo: {
            command: process.execPath,
            args: [TEST_SERVER],
            env: { MCP_TEST_PID_FILE: '${CLAUDE_PLUGIN_ROOT}/server.pid' },
          },
        },
      }),
    )
    git(src, 'init', '-q')
    git(src, 'add', '-A')
    git(src, 'commit', '-q', '-m', 'plugin')
    const bare = join(env.box.root, 'echo-plugin.git')
    git(env.box.root, 'clone', '-q', '--bare', src, bare)
    // The user's own git hooks stay off for a clone agent-tui runs (core.hooksPath=/dev/null).
    const gitHooks = join(env.box.root, 'git-hooks')
    const marker = join(env.box.root, 'hook-ran')
    await mkdir(gitHooks, { recursive: true })
    await writeFile(join(gitHooks, 'post-checkout'), `#!/bin/sh\ntouch ${marker}\n`, { mode: 0o755 })
    await writeFile(join(env.box.home, '.gitconfig'), `[core]\n\thooksPath = ${gitHooks}\n`)
    const added = await plugin('add', `file://${bare}`, '--enable')
    expect(added.stderr).toBe('')
    expect(await exists(marker)).toBe(false)
    expect(added.stdout).toContain(`MCP server echo: ${process.execPath} ${TEST_SERVER}`)
    const root = join(env.box.home, '.local/share/agent-tui/plugins/echo-tools')
    expect(await exists(join(root, '.git'))).toBe(false)

    env.server.enqueue(
      { toolCalls: [{ name: 'mcp__echo__echo', arguments: { text: 'hi' } }] },
      { text: 'done' },
    )
    const r = await env.cli(['-p', 'go', '--mode', 'dangerous'])
    expect(r.code).toBe(0)
    expect(String(messages(1).find((m) => m.role === 'tool')?.content)).toContain('echo: hi')
    expect(Number(await readFile(join(root, 'server.pid'), 'utf8'))).toBeGreaterThan(0)

    expect((await plugin('remove', 'echo-tools')).code).toBe(0)
    expect(await exists(root)).toBe(false)
  })
})
