import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { parseArgs } from '../../../source/config/flags.js'
import { loadSettings } from '../../../source/config/load.js'
import { resolvePaths } from '../../../source/config/app-paths.js'
import { resolveConfig } from '../../../source/config/resolve-config.js'
import { resolveProfile } from '../../../source/provider/model-profiles.js'
import { createSession, type Session } from '../../../source/app/session/create-session.js'

/**
 * The full-screen session lists the endpoint's models only after its first frame, once the session has
 * asked for the model's profile: the window the endpoint reports must still replace the table's.
 */

let root: string
let session: Session | undefined

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'agent-tui-endpoint-window-'))
  await mkdir(join(root, 'home'), { recursive: true })
  await mkdir(join(root, 'work'), { recursive: true })
})
afterEach(async () => {
  await session?.close()
  session = undefined
  await rm(root, { recursive: true, force: true })
})

describe("the endpoint's context length", () => {
  it('replaces the profile window when the listing arrives after the profile was first asked for', async () => {
    const home = join(root, 'home')
    const workspace = join(root, 'work')
    const env = { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_STATE_HOME: join(home, '.state') }
    const loaded = await loadSettings({ cwd: workspace, env, home })
    // As run-interactive.ts does: the object the session reads, filled in when the listing answers.
    const endpoint: { baseUrl: string; model: string; contextLength?: number } = {
      baseUrl: 'http://127.0.0.1:9/v1',
      model: 'test-model',
    }
    session = await createSession({
      config: resolveConfig(parseArgs([]), loaded, env),
      paths: resolvePaths(env, home),
      endpoint,
      workspace,
      interactive: true,
    })
    const table = resolveProfile('test-model').contextLimit
    expect(session.profile().contextLimit).toBe(table)
    expect(session.runtime.contextReport()).toMatchObject({ contextLimit: table, limitSource: 'profile' })

    endpoint.contextLength = table + 17_232
    expect(session.profile().contextLimit).toBe(table + 17_232)
    expect(session.runtime.contextReport()).toMatchObject({
      contextLimit: table + 17_232,
      limitSource: 'endpoint',
    })
  })
})
