/**
 * A PreToolUse hook's "allow" is an allow rule for that one call: it skips what the mode would ask, and
 * never beats the policy's hard limits (deny and ask rules, protected paths, plan mode, local addresses).
 */
import { describe, expect, it } from 'vitest'
import type { SourcedRules } from '../../../source/config/load.js'
import { createConsentBroker } from '../../../source/permissions/broker.js'
import { parseRule } from '../../../source/permissions/rules.js'
import { createStore } from '../../../source/store/create-store.js'
import type { Mode, Risk } from '../../../source/store/domain.js'
import { initialState } from '../../../source/store/state.js'
import type { PermissionTarget } from '../../../source/permissions/target.js'
import { createPermissionGate } from '../../../source/permissions/gate.js'

const workspace = '/work/proj'
const home = '/home/u'

function gate(mode: Mode, spec: { allow?: string[]; ask?: string[]; deny?: string[] } = {}) {
  const store = createStore(
    initialState({ id: 's', cwd: workspace, model: 'm', baseUrl: 'x', title: '', startedAt: 0 }, mode),
  )
  const parse = (list: string[] = []) => list.map((text) => parseRule(text, 'settings.json'))
  const rules: SourcedRules = { allow: parse(spec.allow), ask: parse(spec.ask), deny: parse(spec.deny) }
  const broker = createConsentBroker({ dispatch: store.dispatch, policy: 'interactive', workspace, home })
  return createPermissionGate({
    store,
    rules,
    broker,
    workspace,
    home,
    additionalDirs: [],
    trustedReadDirs: [],
    interactive: true,
    savedTo: 'settings.local.json',
  })
}

const bash = (command: string) => ({
  tool: 'Bash',
  risk: 'exec' as Risk,
  target: { kind: 'command', command } as PermissionTarget,
})
const write = (path: string) => ({
  tool: 'Edit',
  risk: 'edit' as Risk,
  target: { kind: 'path', path, access: 'write' } as PermissionTarget,
})
const fetch = (url: string) => ({
  tool: 'WebFetch',
  risk: 'network' as Risk,
  target: { kind: 'url', url } as PermissionTarget,
})

type Row = [
  string,
  Mode,
  { allow?: string[]; ask?: string[]; deny?: string[] },
  ReturnType<typeof bash>,
  string,
  string,
]

// name, mode, rules, call, policy alone, policy with the hook's allow
const TABLE: Row[] = [
  ['skips the mode asking before a command', 'safe', {}, bash('npm install'), 'ask', 'allow'],
  ['skips the mode asking before an edit', 'safe', {}, write('/work/proj/src/a.ts'), 'ask', 'allow'],
  [
    "covers a command's redirect inside the workspace",
    'safe',
    {},
    bash('npm test > out.txt'),
    'ask',
    'allow',
  ],
  ['lets ci run what it would deny for want of a rule', 'ci', {}, bash('touch x'), 'deny', 'allow'],
  ['never beats a deny rule', 'safe', { deny: ['Bash(rm *)'] }, bash('rm -rf build'), 'deny', 'deny'],
  [
    'never beats a deny rule through an assignment',
    'auto',
    { deny: ['Bash(rm *)'] },
    bash('FOO=1 rm x'),
    'deny',
    'deny',
  ],
  [
    'never beats a deny rule in a compound command',
    'safe',
    { deny: ['Bash(rm *)'] },
    bash('ls && rm x'),
    'deny',
    'deny',
  ],
  [
    'never beats a deny rule in dangerous mode',
    'dangerous',
    { deny: ['Bash(rm *)'] },
    bash('rm x'),
    'deny',
    'deny',
  ],
  ['never beats an ask rule', 'safe', { ask: ['Bash(git push *)'] }, bash('git push origin'), 'ask', 'ask'],
  ['never beats .git/ protection', 'auto', {}, write('/work/proj/.git/config'), 'ask', 'ask'],
  [
    'never beats .git/ protection through a redirect',
    'safe',
    {},
    bash('echo x > .git/hooks/pre-commit'),
    'ask',
    'ask',
  ],
  ['never beats a secrets file', 'auto', {}, write('/work/proj/.env'), 'ask', 'ask'],
  ['never beats a write outside the workspace', 'auto', {}, write('/etc/hosts'), 'ask', 'ask'],
  ['never beats plan mode', 'plan', {}, write('/work/proj/src/a.ts'), 'deny', 'deny'],
  ['never beats plan mode for commands', 'plan', {}, bash('touch x'), 'deny', 'deny'],
  ['never beats a local address', 'safe', {}, fetch('http://127.0.0.1:8080/admin'), 'ask', 'ask'],
  ['changes nothing that was allowed', 'safe', {}, bash('ls'), 'allow', 'allow'],
]

describe("a PreToolUse hook's allow", () => {
  it.each(TABLE)('%s (%s)', (_name, mode, rules, call, alone, withHook) => {
    const g = gate(mode, rules)
    const check = { ...call, readOnly: false }
    expect(g.check(check).decision).toBe(alone)
    expect(g.check({ ...check, hookAllow: true }).decision).toBe(withHook)
  })

  it('says a hook allowed it, not a rule', () => {
    expect(gate('safe').check({ ...bash('npm install'), readOnly: false, hookAllow: true }).reason).toBe(
      'a PreToolUse hook allows `npm install`',
    )
  })
})
