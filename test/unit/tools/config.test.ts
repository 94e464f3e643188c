import { afterEach, describe, expect, it } from 'vitest'
import {
  createRuntimeSettings,
  describeSettings,
  OFFERED_SETTINGS,
  type SettingAccessor,
  type ThemeName,
} from '../../../source/agent/runtime/settings.js'
import { configTool, createConfigTool, isPermissionSetting } from '../../../source/tools/config.js'
import type { RuntimeSettingsApi } from '../../../source/tools/types.js'
import { createTestEnv, run, runError, type TestEnv } from './helpers.js'

let env: TestEnv | undefined
afterEach(async () => {
  await env?.cleanup()
})

/** An accessor over one field of a plain object. */
function field<T extends object, K extends keyof T>(obj: T, key: K): SettingAccessor<T[K]> {
  return {
    get: () => obj[key],
    set: (value) => {
      obj[key] = value
    },
  }
}

/** Real runtime settings over plain variables, recording every call the tool makes. */
function recordingSettings() {
  const values = { verbose: false, observationWindow: 10, theme: 'dark' as ThemeName }
  const inner = createRuntimeSettings({
    verbose: field(values, 'verbose'),
    observationWindow: field(values, 'observationWindow'),
    theme: field(values, 'theme'),
  })
  const calls: string[] = []
  const settings: RuntimeSettingsApi = {
    list() {
      calls.push('list')
      return inner.list()
    },
    get(name) {
      calls.push(`get ${name}`)
      return inner.get(name)
    },
    set(name, value) {
      calls.push(`set ${name}`)
      return inner.set(name, value)
    },
  }
  return { values, settings, calls }
}

describe('Config', () => {
  it.each([
    'mode',
    'permissions.allow',
    'defaultMode',
    'dangerously-skip-permissions',
    'bypass',
    'tools.deny',
  ])('refuses %s without touching the settings', async (setting) => {
    const { settings, calls } = recordingSettings()
    env = await createTestEnv({ settings })
    const error = await runError(configTool, { setting, value: 'dangerous' }, env.ctx)
    expect(error.category).toBe('permission')
    expect(error.message).toBe(
      `"${setting}" cannot be changed by the model; only the user can change permissions (Shift+Tab or /mode)`,
    )
    expect(calls).toEqual([])
  })

  it('does not mistake the whitelisted names for permission settings', () => {
    for (const name of ['model', 'theme', 'verbose', 'observationWindow', 'compactAt', 'showTodos']) {
      expect(isPermissionSetting(name), name).toBe(false)
    }
  })

  it('reads a setting when no value is given', async () => {
    const { settings } = recordingSettings()
    env = await createTestEnv({ settings })
    const result = await run(configTool, { setting: 'observationWindow' }, env.ctx)
    expect(result.forModel).toMatch(/^observationWindow = 10 \(How many of the most recent tool results/)
    expect(configTool.isReadOnly({ setting: 'verbose' })).toBe(true)
    expect(configTool.isReadOnly({ setting: 'verbose', value: true })).toBe(false)
  })

  it('sets a setting, accepting string forms and loose spelling of the name', async () => {
    const { settings, values } = recordingSettings()
    env = await createTestEnv({ settings })
    const result = await run(configTool, { setting: 'verbose', value: 'true' }, env.ctx)
    expect(result.forModel).toBe('verbose changed from false to true.')
    expect(values.verbose).toBe(true)
    await run(configTool, { setting: 'observation_window', value: '25' }, env.ctx)
    expect(values.observationWindow).toBe(25)
  })

  it('reports invalid values as validation errors', async () => {
    const { settings, values } = recordingSettings()
    env = await createTestEnv({ settings })
    const error = await runError(configTool, { setting: 'observationWindow', value: 80 }, env.ctx)
    expect(error.category).toBe('validation')
    expect(error.message).toBe('invalid value 80 for observationWindow: expected an integer from 1 to 50.')
    expect(values.observationWindow).toBe(10)
  })

  it('lists the available settings for an unknown name', async () => {
    const { settings } = recordingSettings()
    env = await createTestEnv({ settings })
    const error = await runError(configTool, { setting: 'fontSize', value: 3 }, env.ctx)
    expect(error.category).toBe('not_found')
    expect(error.message).toContain('unknown setting "fontSize"')
    expect(error.message).toContain('- verbose = false: ')
    expect(error.message).toContain('- theme = "dark": ')
    expect(error.message).toContain('- observationWindow = 10: ')
  })

  it('says so when the session has no runtime settings', async () => {
    env = await createTestEnv()
    const error = await runError(configTool, { setting: 'verbose' }, env.ctx)
    expect(error.message).toBe('runtime settings are not available in this session')
  })

  it('describes exactly the settings the session offers, from the same table', () => {
    const description = createConfigTool(describeSettings()).description
    const listed = /Settings: (.*)\. An unknown name/.exec(description)?.[1] ?? ''
    expect(listed.split('; ').map((entry) => entry.split(' (')[0])).toEqual([...OFFERED_SETTINGS])
    expect(description).toContain('observationWindow')
    expect(description).not.toContain('verbose')
    expect(createConfigTool([]).description).toContain('No settings can be changed in this session.')
  })
})
