/**
 * Real Claude Code files, unchanged (test/fixtures/claude-code/: Anthropic's plugin agents and commands,
 * Anthropic's skills, wshobson/agents), headless against the scripted server: every agent, skill and
 * command loads and is offered or runnable; Anthropic's /commit sends its `!` context without an allow
 * rule; a skill runs as /name; and a 300-item collection keeps the first request's tool definitions
 * within 40 kB while every agent and skill stays callable by name.
 */
import { execFileSync } from 'node:child_process'
import { cp, mkdir, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { FIXTURES, fixtureFiles, writeClaudeCollection } from '../support/claude-collection.ts'
import { setupE2eEnv } from '../support/e2e-env.ts'
import type { RecordedRequest } from '../support/scripted-server.ts'

const env = setupE2eEnv()

type Message = { role: string; content: unknown }
type ToolDefinition = { function: { name: string; description: string } }
const messages = (request: RecordedRequest | undefined) => (request?.body.messages ?? []) as Message[]
const lastUser = (request: RecordedRequest | undefined) =>
  String(messages(request).findLast((m) => m.role === 'user')?.content ?? '')
const tools = (request: RecordedRequest | undefined) => (request?.body.tools ?? []) as ToolDefinition[]
const description = (request: RecordedRequest | undefined, name: string) =>
  tools(request).find((t) => t.function.name === name)?.function.description ?? ''
const configDir = () => join(env.box.home, '.config', 'agent-tui')
/** What stderr says was left out (other lines are notes about files that loaded). */
const leftOut = (stderr: string) => stderr.split('\n').filter((l) => /left out|not loaded|skipped/.test(l))

describe('real Claude Code files, unchanged', () => {
  it('every agent, skill and command of the fixtures loads, and each agent and skill is offered by name', async () => {
    const real = {
      agents: (await fixtureFiles('agents')).length,
      skills: (await fixtureFiles('skills')).length,
      commands: (await fixtureFiles('commands')).length,
    }
    expect(real.agents).toBeGreaterThanOrEqual(40)
    const written = await writeClaudeCollection(configDir(), real)
    env.server.enqueue({ text: 'ok' })
    const r = await env.cli(['-p', 'hello'])
    expect(r.code).toBe(0)
    // wshobson's arm-cortex-expert says `tools: []`: an agent without tools, as Claude Code runs it.
    expect(leftOut(r.stderr)).toEqual([])
    const agentTool = description(env.server.requests[0], 'Agent')
    for (const name of written.agents) expect(agentTool).toContain(name)
    const skillTool = description(env.server.requests[0], 'Skill')
    for (const name of written.skills) expect(skillTool).toContain(name)
    // Anthropic's agents with unquoted multi-line <example> descriptions are offered with their text.
    expect(agentTool).toMatch(/code-simplifier[^\n]*(Simplifies|simplif)/i)
  })

  it("Anthropic's /commit runs its !`git …` context without an allow rule (read-only), and its grants hold", async () => {
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
        cwd: env.box.workspace,
        stdio: 'pipe',
      })
    git('init', '-q', '-b', 'trunk')
    await writeFile(join(env.box.workspace, 'a.txt'), 'one\n')
    git('add', '-A')
    git('commit', '-q', '-m', 'first commit')
    await writeFile(join(env.box.workspace, 'a.txt'), 'two\n')
    const commit = join(FIXTURES, 'anthropics-plugin-formats/plugins/commit-commands/commands/commit.md')
    await mkdir(join(configDir(), 'commands'), { recursive: true })
    await cp(commit, join(configDir(), 'commands', 'commit.md'))
    env.server.enqueue({ text: 'Committed.' })
    const r = await env.cli(['-p', '/commit'])
    expect(r.stderr).not.toContain('did not run')
    expect(r.code).toBe(0)
    const sent = lastUser(env.server.requests[0])
    expect(sent).toContain('- Current git status: On branch trunk')
    expect(sent).toContain('modified:   a.txt')
    expect(sent).toContain('-one\n+two')
    expect(sent).toContain('- Current branch: trunk')
    expect(sent).toMatch(/- Recent commits: [0-9a-f]+ first commit/)
    expect(sent).not.toContain('!`')
  })

  it('a command that writes is still refused in -p without an allow rule', async () => {
    await mkdir(join(configDir(), 'commands'), { recursive: true })
    await writeFile(join(configDir(), 'commands', 'stamp.md'), 'Context:\n```\n!`touch stamped.txt`\n```\n')
    const r = await env.cli(['-p', '/stamp'])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('`touch stamped.txt` did not run')
    expect(env.server.requests).toHaveLength(0)
  })

  it("a skill runs as /name: Anthropic's claude-api skill, whole (over 1,024 characters of description)", async () => {
    const dir = join(configDir(), 'skills', 'claude-api')
    await mkdir(dirname(dir), { recursive: true })
    await cp(join(FIXTURES, 'anthropics-skills/skills/claude-api'), dir, { recursive: true })
    env.server.enqueue({ text: 'ok' })
    const r = await env.cli(['-p', '/claude-api migrate to the newest model'])
    expect(r.code).toBe(0)
    const sent = lastUser(env.server.requests[0])
    expect(sent).toContain('Skill "claude-api" loaded.')
    expect(sent).toContain('This lets users invoke specific flows via `/claude-api <subcommand>`')
    // Run as /name it is rendered as a command (Claude Code's rule, expand.ts): five words are $0…$4, so
    // its price table's `$5.00` and `$25.00` have no word to take and stay as written.
    expect(sent).toContain('$5.00')
    expect(sent).toContain('$25.00')
    expect(sent).not.toContain('model.00')
  })

  it('a community command that is valid YAML (a flow list over two lines) runs', async () => {
    const file = join(FIXTURES, 'wshobson-agents/plugins/startup-business-analyst/commands/business-case.md')
    await mkdir(join(configDir(), 'commands'), { recursive: true })
    await cp(file, join(configDir(), 'commands', 'business-case.md'))
    env.server.enqueue({ text: 'ok' })
    const r = await env.cli(['-p', '/business-case a bakery'])
    expect(leftOut(r.stderr)).toEqual([])
    expect(r.code).toBe(0)
    // Its prompt has no $ARGUMENTS but "$2.0M" and "$0.5M": two words are $0 and $1 (Claude Code counts
    // from 0), so `$2` has none and stays; `$0` is the first word, as in Claude Code.
    expect(lastUser(env.server.requests[0])).toContain('# Business Case Generator')
    expect(lastUser(env.server.requests[0])).toContain('Product Development: $2.0M')
    expect(lastUser(env.server.requests[0])).toContain('Working Capital: a.5M')
  })
})

describe('a 300-item collection (100 agents, 100 skills, 100 commands)', () => {
  it('the first request carries at most 40 kB of tool definitions, and an unlisted skill and agent still run by name', async () => {
    const written = await writeClaudeCollection(configDir())
    const lastSkill = written.skills.at(-1) as string
    const lastAgent = written.agents.at(-1) as string
    env.server.enqueue(
      {
        toolCalls: [
          { name: 'Skill', arguments: { skill: lastSkill } },
          {
            name: 'Agent',
            arguments: { description: 'check', prompt: 'Say done.', subagent_type: lastAgent },
          },
        ],
      },
      { text: 'done' },
      { text: 'All good.' },
    )
    const r = await env.cli(['-p', 'go'])
    expect(r.code).toBe(0)
    const first = env.server.requests[0]
    const bytes = Buffer.byteLength(JSON.stringify(first?.body.tools))
    // #32's budget, with #34's file tools sent too (the Skill and Agent listings make room for them).
    expect(bytes).toBeLessThanOrEqual(40_000)
    // Both are sent (never deferred behind ToolSearch: their descriptions are the lists), within budget.
    expect(description(first, 'Skill')).toContain(`<skill name="${written.skills[0]}">`)
    expect(description(first, 'Agent')).toContain(written.agents[0] as string)
    expect(Buffer.byteLength(description(first, 'Skill'))).toBeLessThanOrEqual(7200)
    expect(Buffer.byteLength(description(first, 'Agent'))).toBeLessThanOrEqual(7200)
    const results = messages(env.server.requests.at(-1))
      .filter((m) => m.role === 'tool')
      .map((m) => String(m.content))
    expect(results[0]).toContain(`Skill "${lastSkill}" loaded.`)
    expect(results[1]).toContain('done')
  })
})
