/**
 * Plugin agents named as Claude Code names them (docs/plugins.md#agents): `plugin:name`, the bare name
 * when unique and not one of the user's or project's own agents. Anthropic's pr-review-toolkit and
 * feature-dev (real fixture files) both ship a `code-reviewer`.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { setupE2eEnv } from '../support/e2e-env.ts'
import { repoRoot, runCli } from '../support/run-cli.ts'

const env = setupE2eEnv()
const FIXTURES = join(repoRoot, 'test/fixtures/claude-code')
const PR_REVIEW = join(FIXTURES, 'anthropics-claude-plugins-official/plugins/pr-review-toolkit')
const FEATURE_DEV = join(FIXTURES, 'anthropics-plugin-formats/plugins/feature-dev')

function plugin(...args: string[]) {
  return runCli(['plugin', ...args], { cwd: env.box.workspace, env: env.box.env, timeoutMs: 30_000 })
}
const agentDescription = () => {
  const tools = (env.server.requests[0]?.body.tools ?? []) as Array<{
    function: { name: string; description: string }
  }>
  return tools.find((t) => t.function.name === 'Agent')?.function.description ?? ''
}
const systemPrompt = (i: number) => {
  const messages = (env.server.requests[i]?.body.messages ?? []) as Array<{ role: string; content?: unknown }>
  return String(messages.find((m) => m.role === 'system')?.content)
}

describe('plugin agents', () => {
  it('two plugins with one agent name: both stay reachable as plugin:name, with a notice', async () => {
    expect((await plugin('add', PR_REVIEW, '--enable')).code).toBe(0)
    expect((await plugin('add', FEATURE_DEV, '--enable')).code).toBe(0)
    env.server.enqueue(
      {
        toolCalls: [
          {
            name: 'Agent',
            arguments: {
              description: 'review',
              prompt: 'TASK-R',
              subagent_type: 'feature-dev:code-reviewer',
            },
          },
        ],
      },
      { text: 'reviewed' },
      { text: 'done' },
    )
    const r = await env.cli(['-p', 'go'])
    expect(r.code, r.stderr).toBe(0)
    const listed = agentDescription()
    expect(listed).toContain('- feature-dev:code-reviewer:')
    expect(listed).toContain('- pr-review-toolkit:code-reviewer:')
    // A name only one plugin has keeps its bare name too (listed namespaced, as in Claude Code).
    expect(listed).toContain('- pr-review-toolkit:silent-failure-hunter:')
    expect(r.stderr).toContain(
      'the agent code-reviewer is in the plugins pr-review-toolkit and feature-dev: reachable as pr-review-toolkit:code-reviewer and feature-dev:code-reviewer, not as code-reviewer',
    )
    // The subagent ran as feature-dev's reviewer, not pr-review-toolkit's.
    expect(systemPrompt(1)).toContain('You are an expert code reviewer')
    expect(systemPrompt(1)).not.toContain('## When to invoke')
  })

  it("the user's own agent keeps the bare name; the plugin's is plugin:name; a unique one answers to its bare name", async () => {
    expect((await plugin('add', PR_REVIEW, '--enable')).code).toBe(0)
    await mkdir(join(env.box.home, '.claude', 'agents'), { recursive: true })
    await writeFile(
      join(env.box.home, '.claude', 'agents', 'code-reviewer.md'),
      '---\nname: code-reviewer\ndescription: My own reviewer\n---\nMY-OWN-REVIEWER instructions.\n',
    )
    env.server.enqueue({ text: 'listed' })
    const listed = await env.cli(['-p', 'go'])
    expect(listed.code, listed.stderr).toBe(0)
    expect(agentDescription()).toContain('- code-reviewer: My own reviewer')
    expect(agentDescription()).toContain('- pr-review-toolkit:code-reviewer:')
    expect(listed.stderr).toContain(
      "code-reviewer is the agent of ~/.claude/agents/code-reviewer.md: this plugin's is pr-review-toolkit:code-reviewer",
    )

    env.server.enqueue({ text: 'mine' })
    const mine = await env.cli(['-p', 'go', '--agent', 'code-reviewer'])
    expect(mine.code, mine.stderr).toBe(0)
    expect(systemPrompt(1)).toContain('MY-OWN-REVIEWER')

    env.server.enqueue({ text: 'theirs' })
    const theirs = await env.cli(['-p', 'go', '--agent', 'pr-review-toolkit:code-reviewer'])
    expect(theirs.code, theirs.stderr).toBe(0)
    expect(systemPrompt(2)).toContain('## When to invoke')

    env.server.enqueue({ text: 'bare' })
    const bare = await env.cli(['-p', 'go', '--agent', 'silent-failure-hunter'])
    expect(bare.code, bare.stderr).toBe(0)
    expect(systemPrompt(3)).toContain('silent failure')
  })
})
