import { describe, expect, it } from 'vitest'
import {
  type Decision,
  evaluate,
  type PolicyInput,
  type PolicyResult,
  type RuleSet,
} from '../../../source/permissions/policy.js'
import { parseRule } from '../../../source/permissions/rules.js'
import type { Mode, Risk } from '../../../source/store/domain.js'
import type { PermissionTarget } from '../../../source/permissions/target.js'
import { cleanGitConfig } from './git-facts.ts'

const workspace = '/work/proj'
const home = '/home/u'
const NO_RULES: RuleSet = { allow: [], ask: [], deny: [] }

function rules(
  spec: { allow?: string[]; ask?: string[]; deny?: string[] },
  source = '.agent-tui/settings.json',
): RuleSet {
  const parse = (list: string[] = []) => list.map((text) => parseRule(text, source))
  return { allow: parse(spec.allow), ask: parse(spec.ask), deny: parse(spec.deny) }
}

function input(
  overrides: Partial<PolicyInput> & Pick<PolicyInput, 'mode' | 'tool' | 'risk' | 'target'>,
): PolicyInput {
  return { readOnly: false, rules: NO_RULES, workspace, home, ...overrides }
}

const none: PermissionTarget = { kind: 'none' }
const edit = (path: string): PermissionTarget => ({ kind: 'path', path, access: 'write' })
const read = (path: string): PermissionTarget => ({ kind: 'path', path, access: 'read' })
const bash = (command: string): PermissionTarget => ({
  kind: 'command',
  command,
  gitConfig: cleanGitConfig(command, workspace, home),
})
const url = (u: string): PermissionTarget => ({ kind: 'url', url: u })

interface Call {
  tool: string
  risk: Risk
  target: PermissionTarget
  readOnly?: boolean
}

const CALLS: Record<string, Call> = {
  read: { tool: 'Read', risk: 'read', target: read('source/a.ts'), readOnly: true },
  edit: { tool: 'Edit', risk: 'edit', target: edit('source/a.ts') },
  exec: { tool: 'TaskStop', risk: 'exec', target: none },
  'exec read-only': { tool: 'TaskStop', risk: 'exec', target: none, readOnly: true },
  network: { tool: 'WebFetch', risk: 'network', target: url('https://example.com/') },
  websearch: { tool: 'WebSearch', risk: 'network', target: none },
  spawn: { tool: 'Agent', risk: 'spawn', target: none },
  config: { tool: 'Config', risk: 'config', target: none },
  'ask user': { tool: 'AskUserQuestion', risk: 'read', target: none, readOnly: true },
  'exit plan': { tool: 'ExitPlanMode', risk: 'read', target: none, readOnly: true },
}

// The mode table (docs/permissions.md#modes): one row per mode, one column per kind of call.
const TABLE: Record<Mode, Record<keyof typeof CALLS, Decision>> = {
  safe: {
    read: 'allow',
    edit: 'ask',
    exec: 'ask',
    'exec read-only': 'allow',
    network: 'ask',
    websearch: 'allow',
    spawn: 'allow',
    config: 'ask',
    'ask user': 'allow',
    'exit plan': 'allow',
  },
  auto: {
    read: 'allow',
    edit: 'allow',
    exec: 'ask',
    'exec read-only': 'allow',
    network: 'ask',
    websearch: 'ask',
    spawn: 'allow',
    config: 'ask',
    'ask user': 'allow',
    'exit plan': 'allow',
  },
  plan: {
    read: 'allow',
    edit: 'deny',
    exec: 'deny',
    'exec read-only': 'allow',
    network: 'allow',
    websearch: 'allow',
    spawn: 'allow',
    config: 'deny',
    'ask user': 'allow',
    'exit plan': 'allow',
  },
  dangerous: {
    read: 'allow',
    edit: 'allow',
    exec: 'allow',
    'exec read-only': 'allow',
    network: 'allow',
    websearch: 'allow',
    spawn: 'allow',
    config: 'allow',
    'ask user': 'allow',
    'exit plan': 'allow',
  },
  ci: {
    read: 'allow',
    edit: 'deny',
    exec: 'deny',
    'exec read-only': 'deny',
    network: 'deny',
    websearch: 'deny',
    spawn: 'allow',
    config: 'deny',
    'ask user': 'deny',
    'exit plan': 'deny',
  },
}

const cells = Object.entries(TABLE).flatMap(([mode, row]) =>
  Object.entries(row).map(([call, decision]) => [mode as Mode, call, decision] as const),
)

describe('evaluate: mode × risk table', () => {
  it.each(cells)('%s mode, %s → %s', (mode, call, decision) => {
    const c = CALLS[call]!
    expect(evaluate(input({ mode, ...c })).decision).toBe(decision)
  })
})

const COMMANDS: Array<[string, Record<Mode, Decision>]> = [
  ['ls -la', { safe: 'allow', auto: 'allow', plan: 'allow', dangerous: 'allow', ci: 'deny' }],
  [
    'git status && git diff | head',
    { safe: 'allow', auto: 'allow', plan: 'allow', dangerous: 'allow', ci: 'deny' },
  ],
  ['rm -rf build', { safe: 'ask', auto: 'ask', plan: 'deny', dangerous: 'allow', ci: 'deny' }],
  ['ls; rm -rf /', { safe: 'ask', auto: 'ask', plan: 'deny', dangerous: 'allow', ci: 'deny' }],
  ['ls > out.txt', { safe: 'ask', auto: 'allow', plan: 'deny', dangerous: 'allow', ci: 'deny' }],
  ['cat a > /tmp/b', { safe: 'ask', auto: 'ask', plan: 'deny', dangerous: 'allow', ci: 'deny' }],
  ['echo x > .git/config', { safe: 'ask', auto: 'ask', plan: 'deny', dangerous: 'ask', ci: 'deny' }],
  ['echo x >> .env', { safe: 'ask', auto: 'ask', plan: 'deny', dangerous: 'allow', ci: 'deny' }],
  ['echo x > "$OUT"', { safe: 'ask', auto: 'ask', plan: 'deny', dangerous: 'allow', ci: 'deny' }],
  ['echo "unterminated', { safe: 'ask', auto: 'ask', plan: 'deny', dangerous: 'allow', ci: 'deny' }],
  ['echo $(rm x)', { safe: 'ask', auto: 'ask', plan: 'deny', dangerous: 'allow', ci: 'deny' }],
]

describe('evaluate: shell commands per mode', () => {
  const rows = COMMANDS.flatMap(([command, byMode]) =>
    Object.entries(byMode).map(([mode, decision]) => [command, mode as Mode, decision] as const),
  )
  it.each(rows)('%j in %s mode → %s', (command, mode, decision) => {
    expect(evaluate(input({ mode, tool: 'Bash', risk: 'exec', target: bash(command) })).decision).toBe(
      decision,
    )
  })
})

describe('evaluate: rules and precedence', () => {
  it.each<[string, Mode, string, Partial<Record<'allow' | 'ask' | 'deny', string[]>>, Decision]>([
    ['deny beats allow', 'safe', 'rm x', { allow: ['Bash'], deny: ['Bash(rm *)'] }, 'deny'],
    ['deny holds in dangerous mode', 'dangerous', 'rm -rf /', { deny: ['Bash(rm *)'] }, 'deny'],
    ['ask beats allow', 'safe', 'git push', { allow: ['Bash(git *)'], ask: ['Bash(git push *)'] }, 'ask'],
    ['an ask rule beats dangerous mode', 'dangerous', 'git push', { ask: ['Bash(git push *)'] }, 'ask'],
    ['deny beats ask', 'safe', 'git push', { ask: ['Bash(git push *)'], deny: ['Bash(git *)'] }, 'deny'],
    ['an allow rule beats safe mode', 'safe', 'npm test', { allow: ['Bash(npm test *)'] }, 'allow'],
    ['an allow rule beats ci mode', 'ci', 'npm test -- x', { allow: ['Bash(npm test *)'] }, 'allow'],
    ['an ask rule in ci becomes deny', 'ci', 'npm test', { allow: ['Bash'], ask: ['Bash(npm *)'] }, 'deny'],
    ['every part must be allowed', 'safe', 'npm test && rm x', { allow: ['Bash(npm test *)'] }, 'ask'],
    [
      'read-only parts count as allowed',
      'safe',
      'cd sub && npm test | tail -5',
      { allow: ['Bash(npm test *)'] },
      'allow',
    ],
    ['in ci the classifier does not allow', 'ci', 'npm test && ls', { allow: ['Bash(npm test *)'] }, 'deny'],
    ['one denied part denies the whole', 'dangerous', 'ls; rm x', { deny: ['Bash(rm *)'] }, 'deny'],
    ['deny rules see inside substitutions', 'dangerous', 'echo $(rm x)', { deny: ['Bash(rm *)'] }, 'deny'],
    ['deny rules see through env assignments', 'dangerous', 'FOO=1 rm x', { deny: ['Bash(rm *)'] }, 'deny'],
    ['deny rules apply to unparseable commands', 'dangerous', 'rm "x', { deny: ['Bash(rm *)'] }, 'deny'],
    [
      'allow rules do not see through env assignments',
      'safe',
      'PATH=. npm test',
      { allow: ['Bash(npm test *)'] },
      'ask',
    ],
    [
      'unparseable commands are never auto-allowed',
      'safe',
      'npm test "x',
      { allow: ['Bash(npm test *)'] },
      'ask',
    ],
    ['plan mode denials are not overridden', 'plan', 'npm test', { allow: ['Bash(npm test *)'] }, 'deny'],
    [
      'a redirect write needs its own permission',
      'safe',
      'npm test > log.txt',
      { allow: ['Bash(npm test *)'] },
      'ask',
    ],
    [
      'Edit rules cover redirect writes',
      'safe',
      'npm test > log.txt',
      { allow: ['Bash(npm test *)', 'Edit(*.txt)'] },
      'allow',
    ],
    [
      'Edit deny rules cover redirect writes',
      'dangerous',
      'echo x > a.lock',
      { deny: ['Edit(*.lock)'] },
      'deny',
    ],
    ['an empty command in ci', 'ci', '', {}, 'deny'],
  ])('%s', (_name, mode, command, spec, decision) => {
    expect(
      evaluate(input({ mode, tool: 'Bash', risk: 'exec', target: bash(command), rules: rules(spec) }))
        .decision,
    ).toBe(decision)
  })

  it('mcp tool-name wildcards allow in ci', () => {
    const result = evaluate(
      input({
        mode: 'ci',
        tool: 'mcp__docs__search',
        risk: 'network',
        target: none,
        rules: rules({ allow: ['mcp__docs__*'] }),
      }),
    )
    expect(result).toMatchObject({ decision: 'allow', rule: 'mcp__docs__*' })
  })

  it('an Edit allow rule beats safe mode for Write', () => {
    const result = evaluate(
      input({
        mode: 'safe',
        tool: 'Write',
        risk: 'edit',
        target: edit('source/x.ts'),
        rules: rules({ allow: ['Edit(source/**)'] }),
      }),
    )
    expect(result).toEqual({
      decision: 'allow',
      reason: 'rule Edit(source/**) in .agent-tui/settings.json allows',
      rule: 'Edit(source/**)',
    })
  })
})

describe('evaluate: protected paths', () => {
  it.each<[string, Mode, string, string[], Decision]>([
    ['.git always asks, even in dangerous mode', 'dangerous', '.git/config', [], 'ask'],
    ['.git asks despite an allow rule', 'auto', '.git/hooks/pre-commit', ['Edit(**)'], 'ask'],
    ['.git in a nested repo', 'dangerous', 'vendor/lib/.git/HEAD', ['Edit'], 'ask'],
    ['.git in ci is denied', 'ci', '.git/config', ['Edit(**)'], 'deny'],
    ['outside the workspace asks in auto', 'auto', '/tmp/x.txt', [], 'ask'],
    ['outside the workspace asks despite a rule', 'safe', '/tmp/x.txt', ['Edit(/tmp/**)'], 'ask'],
    ['outside the workspace is fine in dangerous', 'dangerous', '/tmp/x.txt', [], 'allow'],
    ['relative escape is outside', 'auto', '../other/x.ts', [], 'ask'],
    ['.agent-tui asks in auto', 'auto', '.agent-tui/settings.json', ['Edit(**)'], 'ask'],
    ['.env asks in auto', 'auto', '.env', [], 'ask'],
    ['.env.local asks', 'auto', 'config/.env.local', [], 'ask'],
    ['pem asks', 'auto', 'certs/server.pem', [], 'ask'],
    ['key asks', 'auto', 'tls.key', [], 'ask'],
    ['id_rsa asks', 'auto', 'keys/id_rsa.pub', [], 'ask'],
    ['id_ed25519 asks', 'auto', 'id_ed25519', [], 'ask'],
    ['.npmrc asks', 'auto', '.npmrc', [], 'ask'],
    ['.netrc asks', 'auto', '.netrc', [], 'ask'],
    ['secrets are fine in dangerous', 'dangerous', '.env', [], 'allow'],
    ['secrets in ci are denied despite a rule', 'ci', '.env', ['Edit(**)'], 'deny'],
    ['protected in plan is denied', 'plan', '.env', [], 'deny'],
    ['a normal file in auto is allowed', 'auto', 'source/env.ts', [], 'allow'],
    ['a normal file in ci with a rule is allowed', 'ci', 'source/a.ts', ['Edit(source/**)'], 'allow'],
  ])('%s', (_name, mode, path, allow, decision) => {
    const result = evaluate(
      input({ mode, tool: 'Edit', risk: 'edit', target: edit(path), rules: rules({ allow }) }),
    )
    expect(result.decision).toBe(decision)
  })

  it('reads of secrets files need consent (the read boundary)', () => {
    expect(
      evaluate(input({ mode: 'safe', tool: 'Read', risk: 'read', target: read('.env'), readOnly: true }))
        .decision,
    ).toBe('ask')
  })
})

describe('evaluate: trusted reads and private URLs', () => {
  const outputs = '/state/agent-tui/outputs/s1'

  it('reads of the session outputs dir are allowed in every mode', () => {
    for (const mode of ['safe', 'auto', 'plan', 'dangerous', 'ci'] as const) {
      const result = evaluate(
        input({
          mode,
          tool: 'Read',
          risk: 'read',
          target: read(`${outputs}/abc.txt`),
          trustedReadDirs: [outputs],
        }),
      )
      expect(result).toEqual({ decision: 'allow', reason: 'reading session outputs needs no consent' })
    }
  })

  it('a deny rule still beats a trusted read', () => {
    const result = evaluate(
      input({
        mode: 'safe',
        tool: 'Read',
        risk: 'read',
        target: read(`${outputs}/abc.txt`),
        trustedReadDirs: [outputs],
        rules: rules({ deny: ['Read(/state/**)'] }),
      }),
    )
    expect(result.decision).toBe('deny')
  })

  it.each<[string, Decision]>([
    ['http://localhost:3000/', 'ask'],
    ['http://127.0.0.1/', 'ask'],
    ['http://192.168.1.10/', 'ask'],
    ['http://10.0.0.1/', 'ask'],
    ['http://172.20.0.1/', 'ask'],
    ['http://[::1]/', 'ask'],
    ['https://example.com/', 'allow'],
    ['http://172.40.0.1/', 'allow'],
  ])('plan mode: WebFetch %s → %s', (address, decision) => {
    expect(
      evaluate(input({ mode: 'plan', tool: 'WebFetch', risk: 'network', target: url(address) })).decision,
    ).toBe(decision)
  })

  it('an allow rule covers a private address', () => {
    const result = evaluate(
      input({
        mode: 'plan',
        tool: 'WebFetch',
        risk: 'network',
        target: url('http://localhost:3000/'),
        rules: rules({ allow: ['WebFetch(domain:localhost)'] }),
      }),
    )
    expect(result.decision).toBe('allow')
  })
})

describe('evaluate: reasons', () => {
  it.each<[string, PolicyInput, PolicyResult]>([
    [
      'safe edit',
      input({ mode: 'safe', tool: 'Edit', risk: 'edit', target: edit('a.ts') }),
      { decision: 'ask', reason: 'safe mode asks before edits' },
    ],
    [
      'deny rule',
      input({
        mode: 'dangerous',
        tool: 'Bash',
        risk: 'exec',
        target: bash('rm -rf x'),
        rules: rules({ deny: ['Bash(rm *)'] }),
      }),
      {
        decision: 'deny',
        reason: 'rule Bash(rm *) in .agent-tui/settings.json denies `rm -rf x`',
        rule: 'Bash(rm *)',
      },
    ],
    [
      '.git',
      input({ mode: 'dangerous', tool: 'Write', risk: 'edit', target: edit('.git/config') }),
      { decision: 'ask', reason: 'writes to .git/ always ask', protectedWrite: true },
    ],
    [
      'safe command',
      input({ mode: 'safe', tool: 'Bash', risk: 'exec', target: bash('rm x') }),
      { decision: 'ask', reason: 'safe mode asks before running commands (`rm x`)' },
    ],
    [
      'read-only command',
      input({ mode: 'safe', tool: 'Bash', risk: 'exec', target: bash('ls') }),
      { decision: 'allow', reason: '`ls` is a read-only command' },
    ],
    [
      'redirect write',
      input({ mode: 'safe', tool: 'Bash', risk: 'exec', target: bash('ls > out.txt') }),
      { decision: 'ask', reason: '`ls` writes out.txt: safe mode asks before edits' },
    ],
    [
      'ci conversion',
      input({
        mode: 'ci',
        tool: 'Edit',
        risk: 'edit',
        target: edit('.agent-tui/x.json'),
        rules: rules({ allow: ['Edit'] }),
      }),
      {
        decision: 'deny',
        reason: 'writes to .agent-tui/ always ask; nobody can answer in ci mode, so it is denied',
        protectedWrite: true,
      },
    ],
    [
      'unparseable',
      input({ mode: 'safe', tool: 'Bash', risk: 'exec', target: bash("echo 'x") }),
      {
        decision: 'ask',
        reason: 'cannot parse the command (unterminated single quote), so it needs consent',
      },
    ],
    [
      'ask user in ci',
      input({ mode: 'ci', tool: 'AskUserQuestion', risk: 'read', target: none }),
      { decision: 'deny', reason: 'no user available in ci mode; decide yourself and say so' },
    ],
  ])('%s', (_name, call, expected) => {
    expect(evaluate(call)).toEqual(expected)
  })
})

describe('evaluate: local and private addresses, judged on what the host resolved to', () => {
  const resolved = (u: string, addresses: string[]): PermissionTarget => ({ kind: 'url', url: u, addresses })
  const fetchOf = (target: PermissionTarget, mode: Mode, allow: string[] = []) =>
    evaluate(
      input({ mode, tool: 'WebFetch', risk: 'network', target, readOnly: true, rules: rules({ allow }) }),
    )

  it.each<[Mode, Decision]>([
    ['safe', 'ask'],
    ['auto', 'ask'],
    ['plan', 'ask'],
    ['dangerous', 'ask'],
    ['ci', 'deny'],
  ])('a public name resolving to 127.0.0.1 in %s mode → %s', (mode, decision) => {
    const result = fetchOf(resolved('https://public.example/', ['127.0.0.1']), mode)
    expect(result.decision).toBe(decision)
    expect(result.reason).toContain(
      'public.example resolves to 127.0.0.1, a loopback address (this machine): local and private addresses always ask',
    )
  })

  it('a mixed answer is judged by its non-public address', () => {
    expect(fetchOf(resolved('https://mixed.example/', ['93.184.216.34', '10.0.0.5']), 'plan').decision).toBe(
      'ask',
    )
    expect(fetchOf(resolved('https://ok.example/', ['93.184.216.34']), 'plan').decision).toBe('allow')
  })

  it('only an allow rule for that exact host lets it through; wildcards and bare tool rules do not', () => {
    const target = resolved('http://intranet.corp:8080/wiki', ['10.1.2.3'])
    expect(fetchOf(target, 'ci', ['WebFetch(domain:intranet.corp)'])).toMatchObject({
      decision: 'allow',
      rule: 'WebFetch(domain:intranet.corp)',
    })
    expect(fetchOf(target, 'ci', ['WebFetch(domain:*.corp)']).decision).toBe('deny')
    expect(fetchOf(target, 'safe', ['WebFetch']).decision).toBe('ask')
    expect(fetchOf(target, 'dangerous', ['WebFetch(*)']).decision).toBe('ask')
  })

  it('deny and ask rules still come first', () => {
    const target = resolved('http://localhost:3000/', ['127.0.0.1'])
    const deny = evaluate(
      input({
        mode: 'safe',
        tool: 'WebFetch',
        risk: 'network',
        target,
        rules: rules({ allow: ['WebFetch(domain:localhost)'], deny: ['WebFetch(domain:localhost)'] }),
      }),
    )
    expect(deny.decision).toBe('deny')
  })

  it('without resolved addresses the literal host is judged', () => {
    expect(fetchOf(url('http://169.254.169.254/latest/meta-data/'), 'dangerous').reason).toContain(
      'link-local',
    )
    expect(fetchOf(url('http://[::ffff:127.0.0.1]/'), 'plan').decision).toBe('ask')
    expect(fetchOf(url('https://example.com/'), 'plan').decision).toBe('allow')
  })
})
