import { execFileSync } from 'node:child_process'
import { mkdir, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { setupE2eEnv } from '../support/e2e-env.ts'

/**
 * What agent-tui reads into the prompt without a tool call (instruction files, memory, commands, agents,
 * skills) obeys the read boundary, against the built CLI: a hostile repository's links to a key or to
 * the process environment never reach the endpoint, and stderr names what was left out.
 */

const env = setupE2eEnv()

const KEY = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAAc2VjcmV0LWtleQ==\n'
const API_KEY = 'sk-e2e-api-key-4f1c9a77d2'

describe('instruction files and the read boundary (headless)', () => {
  it('ci mode, untrusted folder: links to ~/.ssh/id_rsa and /proc/self/environ are left out of the prompt', async () => {
    const { workspace: ws, home } = env.box
    await mkdir(join(home, '.ssh'), { recursive: true })
    await writeFile(join(home, '.ssh', 'id_rsa'), KEY, { mode: 0o600 })
    await symlink(join(home, '.ssh', 'id_rsa'), join(ws, 'AGENTS.md'))
    await mkdir(join(ws, '.agent-tui'))
    await symlink('/proc/self/environ', join(ws, '.agent-tui', 'memory.md'))
    // The user's own agent file, linked into ~/.ssh: the config dir is allowed, the key is not.
    const agents = join(home, '.config', 'agent-tui', 'agents')
    await mkdir(agents, { recursive: true })
    await symlink(join(home, '.ssh', 'id_rsa'), join(agents, 'key.md'))
    // The key the run is given is in its environment, which /proc/self/environ would show.
    env.box.env.OPENAI_API_KEY = API_KEY
    env.server.enqueue({ text: 'hello' })
    const r = await env.cli(['-p', 'hi', '--mode', 'ci'])
    expect(r.code).toBe(0)
    expect(r.stdout.trim()).toBe('hello')
    const sent = JSON.stringify(env.server.requests.map((req) => req.body))
    expect(sent).not.toContain('BEGIN OPENSSH')
    expect(sent).not.toContain('c2VjcmV0LWtleQ')
    expect(sent).not.toContain(API_KEY)
    expect(sent).not.toContain('XDG_STATE_HOME=')
    expect(r.stderr).toMatch(
      /warning: AGENTS\.md was left out: reads outside the workspace need consent \(AGENTS\.md resolves to .*\/\.ssh\/id_rsa\)/,
    )
    expect(r.stderr).toMatch(
      /warning: \.agent-tui\/memory\.md was left out: it resolves to \/proc\/\d+\/environ, which is in \/proc/,
    )
    expect(r.stderr).toMatch(/agents\/key\.md: left out: reads outside .*id_rsa/)
    expect(r.stderr).not.toContain('BEGIN OPENSSH')
  })

  it('an instruction file that is a FIFO does not hang the start', async () => {
    execFileSync('mkfifo', [join(env.box.workspace, 'CLAUDE.md')])
    env.server.enqueue({ text: 'hello' })
    const r = await env.cli(['-p', 'hi', '--mode', 'ci'], { timeoutMs: 15_000 })
    expect(r.code).toBe(0)
    expect(r.stderr).toMatch(/warning: CLAUDE\.md was left out: it is not a regular file \(a FIFO/)
  })

  it('a .mcp.json that is a FIFO does not hang the start; a settings file linked to /proc is refused, unquoted', async () => {
    const ws = env.box.workspace
    execFileSync('mkfifo', [join(ws, '.mcp.json')])
    env.server.enqueue({ text: 'hello' })
    const r = await env.cli(['-p', 'hi', '--mode', 'ci'], { timeoutMs: 15_000 })
    expect(r.code).toBe(0)
    expect(r.stderr).toContain('.mcp.json: cannot read it: it is not a regular file (a FIFO')
    await mkdir(join(ws, '.agent-tui'))
    await symlink('/proc/self/environ', join(ws, '.agent-tui', 'settings.json'))
    env.box.env.OPENAI_API_KEY = API_KEY
    const refused = await env.cli(['-p', 'hi', '--mode', 'ci'], { timeoutMs: 15_000 })
    expect(refused.code).not.toBe(0)
    expect(refused.stderr).toMatch(
      /settings\.json: it resolves to \/proc\/\d+\/environ, which is in \/proc, not a file/,
    )
    expect(refused.stderr).not.toContain('OPENAI_API')
  })

  it('a link to a file inside the workspace is read as before', async () => {
    const ws = env.box.workspace
    await mkdir(join(ws, 'docs'))
    await writeFile(join(ws, 'docs', 'agents.md'), 'Run the tests with npm test.\n')
    await symlink('docs/agents.md', join(ws, 'AGENTS.md'))
    env.server.enqueue({ text: 'ok' })
    const r = await env.cli(['-p', 'hi', '--mode', 'ci'])
    expect(r.code).toBe(0)
    const messages = env.server.requests[0]?.body.messages as Array<{ content: string }> | undefined
    expect(messages?.[0]?.content).toContain('Run the tests with npm test.')
    expect(r.stderr).not.toContain('left out')
  })
})
