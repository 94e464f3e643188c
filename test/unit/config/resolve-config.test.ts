import { describe, expect, it } from 'vitest'
import { ConfigError, UsageError } from '../../../source/config/errors.js'
import { parseArgs } from '../../../source/config/flags.js'
import type { LoadedSettings, SettingsScope } from '../../../source/config/load.js'
import { collectRules, mergeSettings } from '../../../source/config/load.js'
import { resolveConfig } from '../../../source/config/resolve-config.js'
import type { Settings } from '../../../source/config/schema.js'

/** Builds what loadSettings returns, from per-scope settings. */
function loaded(layers: Partial<Record<SettingsScope, Settings>> = {}): LoadedSettings {
  const scopes: SettingsScope[] = ['user', 'project', 'local']
  const sources = scopes.map((scope) => ({
    scope,
    path: `/p/${scope}.json`,
    label: `${scope}.json`,
    exists: layers[scope] !== undefined,
    settings: layers[scope] ?? {},
  }))
  return {
    merged: mergeSettings(sources.map((s) => s.settings)),
    sources,
    rules: collectRules(sources),
    localSettingsPath: '/p/local.json',
  }
}

describe('resolveConfig: endpoint values', () => {
  const settings = loaded({
    user: { model: 'settings-model', baseUrl: 'http://settings/v1', apiKey: 'settings-key' },
  })
  const env = { AGENT_TUI_MODEL: 'env-model', OPENAI_BASE_URL: 'http://env/v1/', OPENAI_API_KEY: 'env-key' }

  it.each<
    [
      string,
      string[],
      Record<string, string>,
      [string | undefined, string | undefined, string | undefined],
      string,
    ]
  >([
    [
      'flags win',
      ['--model', 'flag-model', '--base-url', 'http://flag/v1', '--api-key', 'flag-key'],
      env,
      ['flag-model', 'http://flag/v1', 'flag-key'],
      'flag',
    ],
    ['env beats settings', [], env, ['env-model', 'http://env/v1', 'env-key'], 'env'],
    [
      'settings when nothing else',
      [],
      {},
      ['settings-model', 'http://settings/v1', 'settings-key'],
      'settings',
    ],
    [
      'empty env values are ignored',
      [],
      { AGENT_TUI_MODEL: '', OPENAI_API_KEY: '' },
      ['settings-model', 'http://settings/v1', 'settings-key'],
      'settings',
    ],
  ])('%s', (_name, argv, envVars, [model, baseUrl, apiKey], origin) => {
    const config = resolveConfig(parseArgs(argv), settings, envVars)
    expect([config.model, config.baseUrl, config.apiKey]).toEqual([model, baseUrl, apiKey])
    expect(config.origins.model).toBe(origin)
  })

  it('leaves everything unset without any source', () => {
    const config = resolveConfig(parseArgs([]), loaded(), {})
    expect([config.model, config.baseUrl, config.apiKey]).toEqual([undefined, undefined, undefined])
    expect(config.origins).toEqual({ model: 'none', baseUrl: 'none', apiKey: 'none', mode: 'default' })
  })

  it('request headers: settings < AGENT_TUI_CUSTOM_HEADERS < --header, per name whatever its case', () => {
    const config = resolveConfig(
      parseArgs(['--header', 'x-portkey-trace-id: from-flag']),
      loaded({
        user: { headers: { 'x-portkey-provider': 'openai', 'x-portkey-trace-id': 'from-user' } },
        local: { headers: { 'x-portkey-config': 'cfg-1' } },
      }),
      { AGENT_TUI_CUSTOM_HEADERS: 'X-Portkey-Provider: anthropic\nx-portkey-trace-id: from-env' },
    )
    expect(config.headers).toEqual([
      { name: 'X-Portkey-Provider', value: 'anthropic', from: 'env' },
      { name: 'x-portkey-trace-id', value: 'from-flag', from: 'flag' },
      { name: 'x-portkey-config', value: 'cfg-1', from: 'settings' },
    ])
    expect(resolveConfig(parseArgs([]), loaded(), {}).headers).toEqual([])
  })

  it.each<[string[], Record<string, string>, typeof UsageError | typeof ConfigError, string]>([
    [
      [],
      { AGENT_TUI_CUSTOM_HEADERS: 'x-ok: 1\nHost: evil.example' },
      ConfigError,
      'AGENT_TUI_CUSTOM_HEADERS: line 2: "Host" is set by the HTTP client',
    ],
    [['--base-url', 'localhost:1234'], {}, UsageError, '--base-url must be an http(s) URL'],
    [[], { OPENAI_BASE_URL: 'ftp://x' }, ConfigError, 'OPENAI_BASE_URL must be an http(s) URL'],
    [
      [],
      { AGENT_TUI_MODE: 'yolo' },
      ConfigError,
      'AGENT_TUI_MODE must be one of safe, auto, plan, dangerous, ci (got "yolo")',
    ],
  ])('rejects %j %j', (argv, envVars, kind, message) => {
    expect(() => resolveConfig(parseArgs(argv), loaded(), envVars)).toThrow(kind)
    expect(() => resolveConfig(parseArgs(argv), loaded(), envVars)).toThrow(message)
  })
})

describe('resolveConfig: mode', () => {
  it.each<
    [string, string[], Record<string, string>, Partial<Record<SettingsScope, Settings>>, string, number]
  >([
    ['default is safe', [], {}, {}, 'safe', 0],
    ['-p defaults to ci', ['-p', 'x'], {}, {}, 'ci', 0],
    ['-p ignores the settings mode', ['-p', 'x'], {}, { local: { mode: 'auto' } }, 'ci', 0],
    ['-p with --mode', ['-p', 'x', '--mode', 'auto'], {}, {}, 'auto', 0],
    ['settings mode', [], {}, { user: { mode: 'auto' } }, 'auto', 0],
    [
      'local beats project beats user',
      [],
      {},
      { user: { mode: 'plan' }, project: { mode: 'auto' }, local: { mode: 'ci' } },
      'ci',
      0,
    ],
    ['env beats settings', [], { AGENT_TUI_MODE: 'plan' }, { local: { mode: 'auto' } }, 'plan', 0],
    ['flag beats env', ['--mode', 'auto'], { AGENT_TUI_MODE: 'plan' }, {}, 'auto', 0],
    ['--yolo', ['--yolo'], { AGENT_TUI_MODE: 'plan' }, {}, 'dangerous', 0],
    [
      '--dangerously-skip-permissions with -p',
      ['-p', 'x', '--dangerously-skip-permissions'],
      {},
      {},
      'dangerous',
      0,
    ],
    ['dangerous from the local file', [], {}, { local: { mode: 'dangerous' } }, 'dangerous', 0],
    ['dangerous from the user file', [], {}, { user: { mode: 'dangerous' } }, 'dangerous', 0],
    ['dangerous from the committed file is ignored', [], {}, { project: { mode: 'dangerous' } }, 'safe', 1],
    [
      'ignored project mode falls back to the user mode',
      [],
      {},
      { user: { mode: 'auto' }, project: { mode: 'dangerous' } },
      'auto',
      1,
    ],
  ])('%s', (_name, argv, env, layers, mode, warnings) => {
    const config = resolveConfig(parseArgs(argv), loaded(layers), env)
    expect(config.mode).toBe(mode)
    expect(config.warnings).toHaveLength(warnings)
  })

  it('says why a committed dangerous mode is ignored', () => {
    const config = resolveConfig(parseArgs([]), loaded({ project: { mode: 'dangerous' } }), {})
    expect(config.warnings[0]).toContain('ignored "mode": "dangerous" in project.json')
  })
})

describe('resolveConfig: rules, steps and the rest', () => {
  it('concatenates settings rules with the flag rules, keeping sources', () => {
    const settings = loaded({
      user: { permissions: { deny: ['Read(~/.ssh/**)'] } },
      project: { permissions: { allow: ['Bash(npm test *)'], ask: ['Bash(git push *)'] } },
      local: { permissions: { allow: ['Edit(source/**)'] } },
    })
    const config = resolveConfig(
      parseArgs(['--allowed-tools', 'Read,Grep', '--disallowed-tools', 'Bash(rm *)']),
      settings,
      {},
    )
    const show = (list: Array<{ text: string; source?: string }>) =>
      list.map((r) => `${r.text} @ ${r.source}`)
    expect(show(config.rules.allow)).toEqual([
      'Bash(npm test *) @ project.json',
      'Edit(source/**) @ local.json',
      'Read @ --allowed-tools',
      'Grep @ --allowed-tools',
    ])
    expect(show(config.rules.ask)).toEqual(['Bash(git push *) @ project.json'])
    expect(show(config.rules.deny)).toEqual([
      'Read(~/.ssh/**) @ user.json',
      'Bash(rm *) @ --disallowed-tools',
    ])
  })

  it.each<[string[], Settings, number | undefined]>([
    [['--max-steps', '7'], { maxSteps: 30 }, 7],
    [[], { maxSteps: 30 }, 30],
    [[], {}, undefined],
  ])('max steps from %j and %j → %s', (argv, settings, expected) => {
    expect(resolveConfig(parseArgs(argv), loaded({ project: settings }), {}).maxSteps).toBe(expected)
  })

  it('passes the run shape and the merged settings through', () => {
    const config = resolveConfig(
      parseArgs(['-p', 'do', 'it', '--output-format', 'json']),
      loaded({ user: { consentTimeoutSeconds: 30, theme: 'light' } }),
      {},
    )
    expect(config).toMatchObject({
      headless: true,
      outputFormat: 'json',
      prompt: 'do it',
      consentTimeoutSeconds: 30,
      localSettingsPath: '/p/local.json',
      settings: { consentTimeoutSeconds: 30, theme: 'light' },
    })
  })
})
