import { describe, expect, it } from 'vitest'
import { ConfigError } from '../../../source/config/errors.js'
import { mergeSettings, parseSettingsText } from '../../../source/config/load.js'
import {
  collectHooks,
  describeHookEntries,
  type HookSource,
  hooksView,
} from '../../../source/user-hooks/hook-settings.js'

const settings = (hooks: unknown): HookSource['settings'] =>
  parseSettingsText(JSON.stringify({ hooks }), 'f.json') as HookSource['settings']

const user = (s: HookSource['settings']): HookSource => ({ scope: 'user', label: '~/u.json', settings: s })
const project = (s: HookSource['settings']): HookSource => ({
  scope: 'project',
  label: '.agent-tui/settings.json',
  settings: s,
})

describe('the hooks settings key (Claude Code format)', () => {
  it('reads every command hook with its event, matcher, timeout and file, lowest file first', () => {
    const c = collectHooks([
      user(
        settings({
          PreToolUse: [
            { matcher: 'Bash|Edit', hooks: [{ type: 'command', command: './guard.sh', timeout: 5 }] },
          ],
          Stop: [{ hooks: [{ type: 'command', command: 'npm test' }] }],
        }),
      ),
      project(settings({ PostToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: 'fmt' }] }] })),
    ])
    expect(c.warnings).toEqual([])
    expect(c.hooks).toEqual([
      {
        event: 'PreToolUse',
        matcher: 'Bash|Edit',
        command: './guard.sh',
        timeoutSeconds: 5,
        scope: 'user',
        file: '~/u.json',
      },
      {
        event: 'Stop',
        matcher: '',
        command: 'npm test',
        timeoutSeconds: 60,
        scope: 'user',
        file: '~/u.json',
      },
      {
        event: 'PostToolUse',
        matcher: '*',
        command: 'fmt',
        timeoutSeconds: 60,
        scope: 'project',
        file: '.agent-tui/settings.json',
      },
    ])
  })

  it("reports what it cannot run — other events, other hook types, Claude Code's extra fields, bad regexes — and starts", () => {
    const c = collectHooks([
      user(
        settings({
          PermissionRequest: [{ hooks: [{ type: 'command', command: 'x' }] }],
          pretooluse: [{ hooks: [{ type: 'command', command: 'y' }] }],
          PreToolUse: [
            { matcher: 'Bash', hooks: [{ type: 'prompt', prompt: 'is this ok?' }] },
            { matcher: '(oops', hooks: [{ type: 'command', command: 'z' }] },
            { hooks: [{ type: 'command', command: 'w', statusMessage: 'checking' }] },
          ],
        }),
      ),
    ])
    expect(c.hooks.map((h) => h.command)).toEqual(['w'])
    expect(c.warnings).toEqual([
      expect.stringMatching(
        /^~\/u\.json: hooks\.PermissionRequest is not an event agent-tui fires; its hooks are ignored/,
      ),
      expect.stringMatching(
        /hooks\.pretooluse is not an event agent-tui fires \(did you mean PreToolUse\?\)/,
      ),
      '~/u.json: hooks.PreToolUse[0].hooks[0]: "type": "prompt" hooks are not supported; only "command"',
      expect.stringMatching(/hooks\.PreToolUse\[1\]\.matcher "\(oops": not a valid regular expression/),
      '~/u.json: hooks.PreToolUse[2].hooks[0]: "statusMessage" not supported here; ignored',
    ])
  })

  it.each([
    [
      'a command hook without a command',
      { Stop: [{ hooks: [{ type: 'command' }] }] },
      'hooks.Stop[0].hooks[0].command',
    ],
    [
      'a timeout of 0',
      { Stop: [{ hooks: [{ type: 'command', command: 'x', timeout: 0 }] }] },
      'hooks.Stop[0].hooks[0].timeout',
    ],
    ['a group without a hooks list', { Stop: [{ matcher: 'x' }] }, 'hooks.Stop[0].hooks'],
    ['a misspelt group key', { Stop: [{ matchers: 'x', hooks: [] }] }, 'hooks.Stop[0].matchers'],
    ['an event that is not a list', { Stop: { hooks: [] } }, 'hooks.Stop'],
  ])('%s stops the start with the key path', (_name, hooks, keyPath) => {
    let error: unknown
    try {
      parseSettingsText(JSON.stringify({ hooks }), 'f.json')
    } catch (err) {
      error = err
    }
    expect(error).toBeInstanceOf(ConfigError)
    expect((error as ConfigError).keyPath).toBe(keyPath)
  })

  it('"disableAllHooks": the highest file that sets it decides', () => {
    const hooks = settings({ Stop: [{ hooks: [{ type: 'command', command: 'x' }] }] })
    expect(collectHooks([user({ ...hooks, disableAllHooks: true })]).disabledBy).toBe('~/u.json')
    expect(
      collectHooks([user({ ...hooks, disableAllHooks: true }), project({ disableAllHooks: false })])
        .disabledBy,
    ).toBeNull()
  })

  it("merged settings keep every file's hooks of an event", () => {
    const a = settings({ Stop: [{ hooks: [{ type: 'command', command: 'a' }] }] })
    const b = settings({ Stop: [{ hooks: [{ type: 'command', command: 'b' }] }] })
    const merged = mergeSettings([a, b] as never[])
    expect(merged.hooks?.Stop?.flatMap((g) => g.hooks.map((h) => h.command))).toEqual(['a', 'b'])
  })
})

describe('/hooks view', () => {
  const all = collectHooks([
    user(settings({ Stop: [{ hooks: [{ type: 'command', command: 'mine' }] }] })),
    project(settings({ Stop: [{ hooks: [{ type: 'command', command: 'theirs' }] }] })),
  ])
  const untrustedOnly = collectHooks([
    user(settings({ Stop: [{ hooks: [{ type: 'command', command: 'mine' }] }] })),
  ])

  it("lists the repository's hooks as not in force while the folder is untrusted", () => {
    const v = hooksView(all, untrustedOnly, 'this folder is not trusted (/trust)')
    expect(v.active.map((h) => h.command)).toEqual(['mine'])
    expect(v.inactive.map((h) => [h.command, h.file, h.why])).toEqual([
      ['theirs', '.agent-tui/settings.json', 'this folder is not trusted (/trust)'],
    ])
  })

  it('disableAllHooks puts every hook out of force and says where it is set', () => {
    const off = { ...untrustedOnly, disabledBy: '~/u.json' }
    const v = hooksView(all, off, 'untrusted')
    expect(v.active).toEqual([])
    expect(v.inactive.map((h) => [h.command, h.why])).toEqual([
      ['mine', '"disableAllHooks": true in ~/u.json'],
      ['theirs', 'untrusted'],
    ])
  })

  it('describes raw entries one per command for the trust prompt', () => {
    expect(
      describeHookEntries({
        PreToolUse: [
          {
            matcher: 'Bash',
            hooks: [
              { type: 'command', command: 'a' },
              { type: 'command', command: 'b' },
            ],
          },
        ],
        SessionStart: [{ hooks: [{ type: 'command', command: 'c' }] }],
      }),
    ).toEqual(['PreToolUse(Bash): a', 'PreToolUse(Bash): b', 'SessionStart: c'])
  })
})
