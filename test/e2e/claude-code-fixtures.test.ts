/**
 * Real, unchanged Claude Code project layouts (test/fixtures/claude-code/<source>/, each with its LICENSE
 * and SOURCE.md) copied into a workspace as they are: agent-tui reads their CLAUDE.md, settings, commands
 * and agents where Claude Code does, headless against the scripted server.
 */
import { cp } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { setupE2eEnv } from '../support/e2e-env.ts'

const env = setupE2eEnv()
const fixtures = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'claude-code')

type Msg = { role: string; content?: unknown }
type Tool = { function: { name: string; description: string } }
const messages = (i: number) => (env.server.requests[i]?.body.messages ?? []) as Msg[]
const system = (i = 0) => String(messages(i).find((m) => m.role === 'system')?.content ?? '')
const tools = (i = 0) => (env.server.requests[i]?.body.tools ?? []) as Tool[]

async function project(source: string): Promise<void> {
  await cp(join(fixtures, source), env.box.workspace, { recursive: true })
}

describe('anthropics/claude-code-action, its .claude/ as it is', () => {
  it('CLAUDE.md in the prompt, its five agents offered, /review-pr runs as the turn', async () => {
    await project('anthropics-claude-code-action')
    env.server.enqueue({ text: 'reviewed' })
    const r = await env.cli(['-p', '/review-pr 42', '--trust-project', '--output-format', 'json'])
    expect(r.code).toBe(0)
    expect(system()).toContain('A GitHub Action that lets Claude respond to `@claude` mentions')
    const agent = tools().find((t) => t.function.name === 'Agent')?.function.description ?? ''
    for (const name of [
      'code-quality-reviewer',
      'documentation-accuracy-reviewer',
      'performance-reviewer',
      'security-code-reviewer',
      'test-coverage-reviewer',
    ])
      expect(agent).toContain(name)
    const user = messages(0)
      .filter((m) => m.role === 'user')
      .at(-1)?.content
    expect(String(user)).toContain('Perform a comprehensive code review using subagents for key areas')
  })

  it('a command without frontmatter runs too; untrusted, none of .claude/ is used and the notice names it', async () => {
    await project('anthropics-claude-code-action')
    env.server.enqueue({ text: 'ok' })
    const r = await env.cli(['-p', '/commit-and-pr', '--trust-project', '--output-format', 'json'])
    expect(r.code).toBe(0)
    expect(String(messages(0).at(-1)?.content)).toContain("Let's commit the changes.")
    env.server.enqueue({ text: 'ok' })
    const untrusted = await env.cli(['-p', 'hello', '--output-format', 'json'])
    expect(untrusted.code).toBe(0)
    expect(untrusted.stderr).toContain('.claude/settings.json')
    expect(untrusted.stderr).toContain('.claude/agents/code-quality-reviewer.md')
    const agent = tools(1).find((t) => t.function.name === 'Agent')?.function.description ?? ''
    expect(agent).not.toContain('code-quality-reviewer')
  })
})
