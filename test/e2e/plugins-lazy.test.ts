/**
 * A session without plugins does not carry the plugin modules (the registry, manifests, components,
 * installing): they load only when the user has a plugin registry or the settings name plugins, which
 * keeps them out of idle RSS (docs/performance.md#memory). The built CLI runs with a preload that writes
 * the source files of the chunks it loaded.
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { setupE2eEnv } from '../support/e2e-env.ts'
import { repoRoot, runCli } from '../support/run-cli.ts'

const env = setupE2eEnv()
const OFFICIAL = join(repoRoot, 'test/fixtures/claude-code/anthropics-claude-plugins-official')
const PLUGIN_MODULES = [
  'source/plugins/install.ts',
  'source/plugins/manifest.ts',
  'source/plugins/registry.ts',
]

/** A headless turn; the source files of the chunks it loaded. */
async function turnSources(): Promise<string[]> {
  const report = join(env.box.root, 'sources.txt')
  env.server.enqueue({ text: 'ok' })
  const run = await runCli(['--base-url', env.server.baseUrl, '--model', 'm', '-p', 'hi'], {
    cwd: env.box.workspace,
    env: {
      ...env.box.env,
      NODE_OPTIONS: `--import ${JSON.stringify(join(repoRoot, 'test', 'support', 'report-sources.mjs'))}`,
      AGENT_TUI_TEST_SOURCES: report,
    },
    timeoutMs: 40_000,
  })
  expect(run.code, run.stderr).toBe(0)
  return (await readFile(report, 'utf8')).split('\n')
}

describe('the plugin modules', () => {
  it('are not loaded by a session with no plugin registry and no plugin settings, and are once one is installed', async () => {
    const without = await turnSources()
    // The session itself was seen (so an empty report cannot pass).
    expect(without).toContain('source/app/session/create-session.ts')
    for (const module of PLUGIN_MODULES) expect(without).not.toContain(module)

    const added = await runCli(['plugin', 'add', join(OFFICIAL, 'plugins/security-guidance')], {
      cwd: env.box.workspace,
      env: env.box.env,
      timeoutMs: 30_000,
    })
    expect(added.code, added.stderr).toBe(0)
    const withRegistry = await turnSources()
    for (const module of PLUGIN_MODULES) expect(withRegistry).toContain(module)
  })
})
