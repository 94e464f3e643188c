/**
 * Claude Code's `enabledPlugins` in its own settings files (docs/plugins.md#per-folder-enabledplugins):
 * it switches plugins installed in agent-tui, the user's file always, a repository's only once trusted,
 * and never installs one.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { setupE2eEnv } from '../support/e2e-env.ts'
import { repoRoot, runCli } from '../support/run-cli.ts'

const env = setupE2eEnv()
const PR_REVIEW = join(
  repoRoot,
  'test/fixtures/claude-code/anthropics-claude-plugins-official/plugins/pr-review-toolkit',
)
const ID = 'pr-review-toolkit@claude-plugins-official'

function plugin(...args: string[]) {
  return runCli(['plugin', ...args], { cwd: env.box.workspace, env: env.box.env, timeoutMs: 30_000 })
}
const agentListing = (i: number) => {
  const tools = (env.server.requests[i]?.body.tools ?? []) as Array<{
    function: { name: string; description: string }
  }>
  return tools.find((t) => t.function.name === 'Agent')?.function.description ?? ''
}
async function settings(dir: string, json: unknown) {
  await mkdir(dir, { recursive: true })
  await writeFile(join(dir, 'settings.json'), JSON.stringify(json))
}

describe("Claude Code's enabledPlugins", () => {
  it('~/.claude/settings.json turns an installed plugin on; one not installed is named, nothing installed', async () => {
    expect((await plugin('add', PR_REVIEW)).code).toBe(0)
    await settings(join(env.box.home, '.claude'), { enabledPlugins: { [ID]: true, evil: true } })
    env.server.enqueue({ text: 'done' })
    const r = await env.cli(['-p', 'go'])
    expect(r.code, r.stderr).toBe(0)
    expect(agentListing(0)).toContain('- pr-review-toolkit:code-reviewer:')
    expect(r.stderr).toContain(
      'plugins: the settings enable evil, which is not installed (agent-tui plugin add evil)',
    )
    const list = await plugin('list')
    expect(list.stdout).not.toContain('evil')
  })

  it("a repository's .claude/settings.json applies only in a trusted folder", async () => {
    expect((await plugin('add', PR_REVIEW)).code).toBe(0)
    await settings(join(env.box.workspace, '.claude'), { enabledPlugins: { [ID]: true } })
    env.server.enqueue({ text: 'untrusted' }, { text: 'trusted' })
    const untrusted = await env.cli(['-p', 'go'])
    expect(untrusted.code, untrusted.stderr).toBe(0)
    expect(untrusted.stderr).toContain(`"enabledPlugins": ${ID}`)
    expect(agentListing(0)).not.toContain('pr-review-toolkit:')
    const trusted = await env.cli(['-p', 'go', '--trust-project'])
    expect(trusted.code, trusted.stderr).toBe(0)
    expect(agentListing(1)).toContain('- pr-review-toolkit:code-reviewer:')
  })
})
