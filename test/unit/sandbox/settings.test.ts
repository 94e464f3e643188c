import { describe, expect, it } from 'vitest'
import { settingsSchema } from '../../../source/config/schema.js'
import {
  isSandboxTightening,
  normalizeSandbox,
  resolveSandbox,
  type SandboxConfig,
  type SandboxSetting,
} from '../../../source/sandbox/settings.js'

const OFF: SandboxConfig = { mode: 'off', network: false }
const ON: SandboxConfig = { mode: 'workspace-write', network: false }
const NET: SandboxConfig = { mode: 'workspace-write', network: true }

describe('the sandbox setting', () => {
  it.each<[SandboxSetting | undefined, SandboxConfig]>([
    [undefined, OFF],
    ['off', OFF],
    ['workspace-write', ON],
    [{ mode: 'workspace-write' }, ON],
    [{ mode: 'workspace-write', network: true }, NET],
    [{ mode: 'off', network: true }, OFF],
  ])('%j → %j', (setting, config) => {
    expect(normalizeSandbox(setting)).toEqual(config)
  })

  it.each<['on' | 'off' | undefined, SandboxSetting | undefined, SandboxConfig]>([
    [undefined, undefined, OFF],
    [undefined, 'workspace-write', ON],
    ['on', undefined, ON],
    // --sandbox keeps the settings' network choice.
    ['on', { mode: 'off', network: true }, ON],
    ['on', { mode: 'workspace-write', network: true }, NET],
    ['off', { mode: 'workspace-write', network: true }, OFF],
  ])('flag %s with settings %j → %j', (flag, setting, config) => {
    expect(resolveSandbox(flag, setting)).toEqual(config)
  })

  it.each<[SandboxConfig, SandboxConfig, boolean]>([
    [OFF, OFF, true],
    // Switching it on changes what auto mode runs unasked: not a tightening.
    [OFF, ON, false],
    [ON, OFF, false],
    [ON, ON, true],
    [ON, NET, false],
    [NET, ON, true],
    [NET, NET, true],
  ])('%j → %j tightens: %s', (base, next, tightens) => {
    expect(isSandboxTightening(base, next)).toBe(tightens)
  })

  it.each([
    [{ sandbox: 'workspace-write' }, true],
    [{ sandbox: { mode: 'workspace-write', network: false } }, true],
    [{ sandbox: 'on' }, false],
    [{ sandbox: { mode: 'workspace-write', net: true } }, false],
    [{ sandbox: true }, false],
  ])('settings file %j valid: %s', (settings, valid) => {
    expect(settingsSchema.safeParse(settings).success).toBe(valid)
  })
})
