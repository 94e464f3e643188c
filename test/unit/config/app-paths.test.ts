import { describe, expect, it } from 'vitest'
import { ConfigError } from '../../../source/config/errors.js'
import {
  outputsDir,
  projectKey,
  projectSettingsPaths,
  resolvePaths,
  sessionsDir,
} from '../../../source/config/app-paths.js'

describe('resolvePaths', () => {
  it.each<
    [string, Record<string, string | undefined>, string | undefined, { config: string; state: string }]
  >([
    [
      'defaults under HOME',
      { HOME: '/h' },
      undefined,
      { config: '/h/.config/agent-tui', state: '/h/.local/state/agent-tui' },
    ],
    [
      'XDG variables win',
      { HOME: '/h', XDG_CONFIG_HOME: '/cfg', XDG_STATE_HOME: '/st' },
      undefined,
      { config: '/cfg/agent-tui', state: '/st/agent-tui' },
    ],
    [
      'relative XDG values are ignored',
      { HOME: '/h', XDG_CONFIG_HOME: 'rel', XDG_STATE_HOME: '' },
      undefined,
      { config: '/h/.config/agent-tui', state: '/h/.local/state/agent-tui' },
    ],
    [
      'home argument when HOME is unset',
      {},
      '/fallback',
      { config: '/fallback/.config/agent-tui', state: '/fallback/.local/state/agent-tui' },
    ],
  ])('%s', (_name, env, home, expected) => {
    const paths = resolvePaths(env, home)
    expect(paths.configDir).toBe(expected.config)
    expect(paths.stateDir).toBe(expected.state)
    expect(paths.userSettingsFile).toBe(`${expected.config}/settings.json`)
    expect(paths.sessionsRoot).toBe(`${expected.state}/sessions`)
    expect(paths.outputsRoot).toBe(`${expected.state}/outputs`)
    expect(paths.debugDir).toBe(`${expected.state}/debug`)
    expect(paths.pidRegistryFile).toBe(`${expected.state}/pids.json`)
  })

  it.each<[Record<string, string>, string]>([
    [{ HOME: '/h' }, '/h/.local/share/agent-tui'],
    [{ HOME: '/h', XDG_DATA_HOME: '/data' }, '/data/agent-tui'],
    [{ HOME: '/h', XDG_DATA_HOME: 'relative' }, '/h/.local/share/agent-tui'],
  ])('installed plugins live in the data dir: %j', (env, data) => {
    const paths = resolvePaths(env)
    expect(paths.dataDir).toBe(data)
    expect(paths.pluginsDir).toBe(`${data}/plugins`)
    expect(paths.marketplacesDir).toBe(`${data}/marketplaces`)
    expect(paths.pluginRegistryFile).toBe(`${data}/plugins.json`)
  })

  it('fails clearly without a home directory', () => {
    expect(() => resolvePaths({})).toThrow(ConfigError)
    expect(() => resolvePaths({})).toThrow('cannot find the home directory')
  })
})

describe('projectKey', () => {
  it.each<[string, string]>([
    ['/work/main', '-work-main'],
    ['/home/a b/c.d_e', '-home-a-b-c.d_e'],
    ['/work/main/', '-work-main'],
  ])('%j → %j', (cwd, key) => {
    expect(projectKey(cwd)).toBe(key)
  })

  it('shortens long paths with a hash that tells them apart', () => {
    const a = projectKey(`/${'x'.repeat(100)}/a`)
    const b = projectKey(`/${'x'.repeat(100)}-a`)
    expect(a.length).toBeLessThanOrEqual(80)
    expect(a).toMatch(/-[0-9a-f]{8}$/)
    expect(a).not.toBe(b)
  })
})

describe('per-project and per-session dirs', () => {
  const paths = resolvePaths({ HOME: '/h' })

  it('places sessions by project key and outputs by session id', () => {
    expect(sessionsDir(paths, '/work/main')).toBe('/h/.local/state/agent-tui/sessions/-work-main')
    expect(outputsDir(paths, 's-123')).toBe('/h/.local/state/agent-tui/outputs/s-123')
  })

  it.each(['../x', 'a/b', '', '.hidden'])('rejects the session id %j', (id) => {
    expect(() => outputsDir(paths, id)).toThrow(`invalid session id "${id}"`)
  })

  it('names the project settings files', () => {
    expect(projectSettingsPaths('/work/main')).toEqual({
      dir: '/work/main/.agent-tui',
      project: '/work/main/.agent-tui/settings.json',
      local: '/work/main/.agent-tui/settings.local.json',
    })
  })
})
