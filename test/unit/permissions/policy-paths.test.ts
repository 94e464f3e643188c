import { describe, expect, it } from 'vitest'
import {
  type Decision,
  evaluate,
  type PolicyInput,
  type RuleSet,
} from '../../../source/permissions/policy.js'
import { parseRule } from '../../../source/permissions/rules.js'
import type { PermissionTarget } from '../../../source/permissions/target.js'
import type { Mode, Risk } from '../../../source/store/domain.js'

const workspace = '/work/proj'
const home = '/home/u'
const outputs = '/state/agent-tui/outputs/s1'

function rules(spec: { allow?: string[]; ask?: string[]; deny?: string[] } = {}): RuleSet {
  const parse = (list: string[] = []) => list.map((text) => parseRule(text, 'settings'))
  return { allow: parse(spec.allow), ask: parse(spec.ask), deny: parse(spec.deny) }
}

/** A path target as the gate hands it over: lexical path and its real path. */
const at = (path: string, real: string, access: 'read' | 'write'): PermissionTarget => ({
  kind: 'path',
  path: path.startsWith('/') ? path : `${workspace}/${path}`,
  access,
  real: real.startsWith('/') ? real : `${workspace}/${real}`,
})

function decide(
  mode: Mode,
  tool: string,
  risk: Risk,
  target: PermissionTarget,
  extra: Partial<PolicyInput> = {},
) {
  return evaluate({
    mode,
    tool,
    risk,
    target,
    readOnly: risk === 'read',
    rules: rules(),
    workspace,
    home,
    trustedReadDirs: [outputs],
    ...extra,
  })
}

const MODES: Mode[] = ['safe', 'auto', 'plan', 'dangerous', 'ci']
const row = (safe: Decision, auto: Decision, plan: Decision, dangerous: Decision, ci: Decision) => ({
  safe,
  auto,
  plan,
  dangerous,
  ci,
})

describe('protected names on case-insensitive file systems', () => {
  // On macOS (APFS/HFS+, case-insensitive by default) `.GIT/config` is `.git/config`; HFS+ also
  // ignores some invisible code points. Asking about them on Linux costs one prompt.
  it.each([
    '.GIT/config',
    '.Git/hooks/pre-commit',
    'sub/.GIT/config',
    '.g\u200cit/config',
    '.AGENT-TUI/settings.local.json',
    '.ENV',
    '.Env.Local',
    'keys/ID_RSA',
    'Server.PEM',
    '.SSH/authorized_keys',
  ])('an auto-mode edit of %j asks', (path) => {
    expect(decide('auto', 'Edit', 'edit', at(path, path, 'write')).decision).toBe('ask')
  })

  it('a .git spelled otherwise still asks in dangerous mode, as .git/ does', () => {
    expect(decide('dangerous', 'Edit', 'edit', at('.GIT/config', '.GIT/config', 'write')).decision).toBe(
      'ask',
    )
  })

  it('ordinary names that only look alike do not', () => {
    expect(
      decide('auto', 'Edit', 'edit', at('.github/workflows/ci.yml', '.github/workflows/ci.yml', 'write'))
        .decision,
    ).toBe('allow')
    expect(decide('auto', 'Edit', 'edit', at('.ENV.EXAMPLE', '.ENV.EXAMPLE', 'write')).decision).toBe('allow')
  })
})

describe('configuration and instruction files are protected at any depth', () => {
  // A later session started in the subfolder reads them, and its trust may come from a parent folder.
  it.each([
    ['sub/.mcp.json', 'writes to .mcp.json always ask (it names programs agent-tui starts)'],
    ['a/b/.mcp.json', 'writes to .mcp.json always ask (it names programs agent-tui starts)'],
    ['.claude.json', 'writes to .claude.json always ask (it names programs agent-tui starts)'],
    ['sub2/.agent-tui/settings.json', 'writes to .agent-tui/ always ask'],
    ['pkg/.agent-tui/memory.md', 'writes to .agent-tui/ always ask'],
    ['.claude/settings.json', 'writes to .claude/ always ask (settings, hooks and commands live there)'],
    ['web/.claude/commands/x.md', 'writes to .claude/ always ask (settings, hooks and commands live there)'],
    ['AGENTS.md', 'writes to instruction files (AGENTS.md) always ask'],
    ['docs/AGENTS.md', 'writes to instruction files (AGENTS.md) always ask'],
    ['CLAUDE.md', 'writes to instruction files (CLAUDE.md) always ask'],
    ['svc/api/CLAUDE.local.md', 'writes to instruction files (CLAUDE.local.md) always ask'],
    ['lib/.git/hooks/post-checkout', 'writes to .git/ always ask'],
  ])('an auto-mode Write of %s asks: %s', (path, reason) => {
    for (const tool of ['Write', 'Edit', 'NotebookEdit']) {
      const result = decide('auto', tool, 'edit', at(path, path, 'write'))
      expect(result).toMatchObject({ decision: 'ask', reason, protectedWrite: true })
    }
  })

  it('an allow rule does not open them', () => {
    const extra = { rules: rules({ allow: ['Write', 'Edit(**)'] }) }
    expect(decide('ci', 'Write', 'edit', at('sub/.mcp.json', 'sub/.mcp.json', 'write'), extra).decision).toBe(
      'deny',
    )
    expect(
      decide('safe', 'Edit', 'edit', at('sub/CLAUDE.md', 'sub/CLAUDE.md', 'write'), extra).decision,
    ).toBe('ask')
  })

  it('names that only contain them do not', () => {
    for (const path of ['docs/agents.mdx', 'my.mcp.json.bak', 'claude/notes.md', 'src/AGENTS.md.txt']) {
      expect(decide('auto', 'Write', 'edit', at(path, path, 'write')).decision).toBe('allow')
    }
  })
})

describe('resolve before you judge: edits through symlinks', () => {
  const cases: Array<[string, string, PermissionTarget, Record<Mode, Decision>]> = [
    [
      'Edit gitlink/config (gitlink -> .git)',
      'Edit',
      at('gitlink/config', '.git/config', 'write'),
      row('ask', 'ask', 'deny', 'ask', 'deny'),
    ],
    [
      'Write gitlink/hooks/pre-commit',
      'Write',
      at('gitlink/hooks/pre-commit', '.git/hooks/pre-commit', 'write'),
      row('ask', 'ask', 'deny', 'ask', 'deny'),
    ],
    [
      'Write link/f (link -> ../outside)',
      'Write',
      at('link/f', '/work/outside/f', 'write'),
      row('ask', 'ask', 'deny', 'allow', 'deny'),
    ],
    [
      'Edit a file that links outside',
      'Edit',
      at('notes.md', '/home/u/notes.md', 'write'),
      row('ask', 'ask', 'deny', 'allow', 'deny'),
    ],
    [
      'Write innocuous.txt -> .env',
      'Write',
      at('innocuous.txt', '.env', 'write'),
      row('ask', 'ask', 'deny', 'allow', 'deny'),
    ],
    [
      'Edit src/conf -> ../.agent-tui/settings.json',
      'Edit',
      at('src/conf', '.agent-tui/settings.json', 'write'),
      row('ask', 'ask', 'deny', 'allow', 'deny'),
    ],
    [
      'Write .mcp.json (it names programs started outside any sandbox)',
      'Write',
      at('.mcp.json', '.mcp.json', 'write'),
      row('ask', 'ask', 'deny', 'allow', 'deny'),
    ],
    [
      'Edit sub/.mcp.json (a session started in sub/ reads it)',
      'Edit',
      at('sub/.mcp.json', 'sub/.mcp.json', 'write'),
      row('ask', 'ask', 'deny', 'allow', 'deny'),
    ],
    [
      'Write src/conf -> ../sub/.agent-tui/settings.json',
      'Write',
      at('src/conf', 'sub/.agent-tui/settings.json', 'write'),
      row('ask', 'ask', 'deny', 'allow', 'deny'),
    ],
    [
      'Edit a plain file',
      'Edit',
      at('src/a.ts', 'src/a.ts', 'write'),
      row('ask', 'allow', 'deny', 'allow', 'deny'),
    ],
    [
      'Edit a link that stays inside',
      'Edit',
      at('alias.ts', 'src/a.ts', 'write'),
      row('ask', 'allow', 'deny', 'allow', 'deny'),
    ],
  ]
  it.each(
    cases.flatMap(([name, tool, target, byMode]) =>
      MODES.map((m) => [name, m, byMode[m], tool, target] as const),
    ),
  )('%s in %s mode → %s', (_name, mode, decision, tool, target) => {
    expect(decide(mode, tool, 'edit', target).decision).toBe(decision)
  })

  it('an allow rule must cover the real path; a deny rule either path', () => {
    const target = at('src/link.ts', 'vendor/lib.ts', 'write')
    expect(decide('ci', 'Edit', 'edit', target, { rules: rules({ allow: ['Edit(src/**)'] }) }).decision).toBe(
      'deny',
    )
    expect(
      decide('ci', 'Edit', 'edit', target, { rules: rules({ allow: ['Edit(vendor/**)'] }) }).decision,
    ).toBe('allow')
    expect(
      decide('dangerous', 'Edit', 'edit', target, { rules: rules({ deny: ['Edit(vendor/**)'] }) }).decision,
    ).toBe('deny')
  })

  it('protected paths beat allow rules after resolution', () => {
    const target = at('gitlink/config', '.git/config', 'write')
    expect(
      decide('auto', 'Edit', 'edit', target, { rules: rules({ allow: ['Edit', 'Edit(**)'] }) }).decision,
    ).toBe('ask')
  })

  it('says what the path resolved to', () => {
    expect(decide('auto', 'Edit', 'edit', at('gitlink/config', '.git/config', 'write')).reason).toBe(
      'writes to .git/ always ask (gitlink/config resolves to .git/config)',
    )
    expect(decide('auto', 'Write', 'edit', at('innocuous.txt', '.env', 'write')).reason).toBe(
      'writes to secrets files (.env) always ask (innocuous.txt resolves to .env)',
    )
  })

  it('added directories are writable like the workspace, protections included', () => {
    const extra = { additionalDirs: ['/work/shared'] }
    expect(
      decide('auto', 'Edit', 'edit', at('/work/shared/a.ts', '/work/shared/a.ts', 'write'), extra).decision,
    ).toBe('allow')
    expect(
      decide('auto', 'Edit', 'edit', at('/work/shared/.env', '/work/shared/.env', 'write'), extra).decision,
    ).toBe('ask')
    expect(
      decide('auto', 'Edit', 'edit', at('/work/other/a.ts', '/work/other/a.ts', 'write'), extra).decision,
    ).toBe('ask')
  })
})

describe("agent-tui's own settings and state inside the workspace (agent-tui started in the home folder)", () => {
  const extra = { appDirs: [`${workspace}/.config/agent-tui`, `${workspace}/.local/state/agent-tui`] }
  it.each([
    ['.config/agent-tui/settings.json', 'Write'],
    ['.local/state/agent-tui/trusted-folders.json', 'Write'],
    ['.local/state/agent-tui/local-settings.json', 'Edit'],
  ])('a write to %s asks like .agent-tui/ (auto mode; denied in ci)', (path, tool) => {
    const target = at(path, path, 'write')
    const auto = decide('auto', tool, 'edit', target, extra)
    expect(auto.decision).toBe('ask')
    expect(auto.reason).toBe("writes to agent-tui's own settings and state always ask")
    expect(decide('ci', tool, 'edit', target, { ...extra, rules: rules({ allow: ['Edit'] }) }).decision).toBe(
      'deny',
    )
    expect(
      decide('auto', 'Bash', 'exec', { kind: 'command', command: `echo x > ${path}` }, extra).decision,
    ).toBe('ask')
  })

  it('the rest of the home folder is the workspace as usual', () => {
    expect(
      decide('auto', 'Write', 'edit', at('.config/other/x.json', '.config/other/x.json', 'write'), extra)
        .decision,
    ).toBe('allow')
  })
})

describe('reads have a boundary too', () => {
  const cases: Array<[string, string, PermissionTarget, Record<Mode, Decision>]> = [
    [
      'Read /etc/shadow',
      'Read',
      at('/etc/shadow', '/etc/shadow', 'read'),
      row('ask', 'ask', 'ask', 'allow', 'deny'),
    ],
    ['Read .env', 'Read', at('.env', '.env', 'read'), row('ask', 'ask', 'ask', 'allow', 'deny')],
    [
      'Read .env.local',
      'Read',
      at('config/.env.local', 'config/.env.local', 'read'),
      row('ask', 'ask', 'ask', 'allow', 'deny'),
    ],
    [
      'Read ~/.ssh/id_rsa',
      'Read',
      at('/home/u/.ssh/id_rsa', '/home/u/.ssh/id_rsa', 'read'),
      row('ask', 'ask', 'ask', 'allow', 'deny'),
    ],
    [
      'Read ~/.aws/credentials',
      'Read',
      at('/home/u/.aws/credentials', '/home/u/.aws/credentials', 'read'),
      row('ask', 'ask', 'ask', 'allow', 'deny'),
    ],
    ['Read .npmrc', 'Read', at('.npmrc', '.npmrc', 'read'), row('ask', 'ask', 'ask', 'allow', 'deny')],
    [
      'Read certs/server.key',
      'Read',
      at('certs/server.key', 'certs/server.key', 'read'),
      row('ask', 'ask', 'ask', 'allow', 'deny'),
    ],
    [
      'Read a link to a secret',
      'Read',
      at('innocuous.txt', '.env', 'read'),
      row('ask', 'ask', 'ask', 'allow', 'deny'),
    ],
    [
      'Read a link out of the workspace',
      'Read',
      at('docs/link.md', '/etc/passwd', 'read'),
      row('ask', 'ask', 'ask', 'allow', 'deny'),
    ],
    [
      'Glob ../other',
      'Glob',
      at('/work/other', '/work/other', 'read'),
      row('ask', 'ask', 'ask', 'allow', 'deny'),
    ],
    [
      'Grep ~/.ssh',
      'Grep',
      at('/home/u/.ssh', '/home/u/.ssh', 'read'),
      row('ask', 'ask', 'ask', 'allow', 'deny'),
    ],
    [
      'Read a source file',
      'Read',
      at('src/a.ts', 'src/a.ts', 'read'),
      row('allow', 'allow', 'allow', 'allow', 'allow'),
    ],
    [
      'Read .env.example',
      'Read',
      at('.env.example', '.env.example', 'read'),
      row('allow', 'allow', 'allow', 'allow', 'allow'),
    ],
    [
      'Grep the workspace',
      'Grep',
      at(workspace, workspace, 'read'),
      row('allow', 'allow', 'allow', 'allow', 'allow'),
    ],
    [
      'Read session outputs',
      'Read',
      at(`${outputs}/x.txt`, `${outputs}/x.txt`, 'read'),
      row('allow', 'allow', 'allow', 'allow', 'allow'),
    ],
  ]
  it.each(
    cases.flatMap(([name, tool, target, byMode]) =>
      MODES.map((m) => [name, m, byMode[m], tool, target] as const),
    ),
  )('%s in %s mode → %s', (_name, mode, decision, tool, target) => {
    expect(decide(mode, tool, 'read', target).decision).toBe(decision)
  })

  it('opens for added directories and for a Read rule that names the path, not for a bare Read rule', () => {
    const outside = at('/srv/data/a.csv', '/srv/data/a.csv', 'read')
    expect(decide('ci', 'Read', 'read', outside, { additionalDirs: ['/srv/data'] }).decision).toBe('allow')
    expect(
      decide('ci', 'Read', 'read', outside, { rules: rules({ allow: ['Read(//srv/**)'] }) }).decision,
    ).toBe('allow')
    expect(decide('ci', 'Read', 'read', outside, { rules: rules({ allow: ['Read'] }) }).decision).toBe('deny')
    expect(decide('ci', 'Read', 'read', outside, { rules: rules({ allow: ['Read(*)'] }) }).decision).toBe(
      'deny',
    )
  })

  it('says why and suggests a rule for the directory', () => {
    expect(decide('safe', 'Read', 'read', at('/etc/shadow', '/etc/shadow', 'read'))).toEqual({
      decision: 'ask',
      reason: 'reads outside the workspace need consent',
      suggestedRule: 'Read(//etc/**)',
    })
    expect(decide('safe', 'Read', 'read', at('innocuous.txt', '.env', 'read')).reason).toBe(
      'reads of secrets files (.env) need consent (innocuous.txt resolves to .env)',
    )
  })
})

describe('Config: reading a setting is a read', () => {
  it.each(MODES)('reading in %s mode is allowed; setting keeps the config class', (mode) => {
    const read = decide(mode, 'Config', 'config', { kind: 'none' }, { readOnly: true })
    expect(read).toEqual({ decision: 'allow', reason: 'reading a setting needs no consent' })
    const set = decide(mode, 'Config', 'config', { kind: 'none' }, { readOnly: false })
    expect(set.decision).toBe(
      { safe: 'ask', auto: 'ask', plan: 'deny', dangerous: 'allow', ci: 'deny' }[mode],
    )
  })
})
