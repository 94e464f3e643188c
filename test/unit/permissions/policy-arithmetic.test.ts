// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${…}` here is shell parameter expansion under test, not a template
import { describe, expect, it } from 'vitest'
import { type Decision, evaluate, type PolicyInput } from '../../../source/permissions/policy.js'
import { parseRule } from '../../../source/permissions/rules.js'
import type { SandboxView } from '../../../source/permissions/sandbox-fence.js'
import type { Mode } from '../../../source/store/domain.js'

/**
 * A command whose expansions make bash evaluate a value as code (see shell-arithmetic.ts and the oracle in
 * arithmetic-oracle.test.ts) is not read-only: it asks in safe mode, plan and ci deny it, and auto mode
 * runs it unasked only inside the sandbox.
 */

const workspace = '/work/proj'
const SANDBOX: SandboxView = { writableRoots: [workspace], projectRoots: [workspace] }

function decide(mode: Mode, command: string, sandboxed = false, allow: string[] = []) {
  const input: PolicyInput = {
    mode,
    tool: 'Bash',
    risk: 'exec',
    target: { kind: 'command', command, ...(sandboxed ? { sandbox: SANDBOX } : {}) },
    readOnly: false,
    rules: { allow: allow.map((text) => parseRule(text, '--allowed-tools')), ask: [], deny: [] },
    workspace,
    home: '/home/u',
    ...(sandboxed ? { sandbox: SANDBOX } : {}),
  }
  return evaluate(input)
}

const evaluating = [
  'x=$(cat VERSION); [[ $x -eq 3 ]] && echo ok',
  "x='a[$(touch /tmp/pwn)]'; echo ${arr[x]}",
  'x=$(cat VERSION); echo ${x:x:1}',
  "true='a[$(touch /tmp/pwn)]'; echo $((true))",
  'x=$(cat VERSION); [ -v "$x" ]',
  'y=$(cat PROMPT); echo ${y@P}',
]

const reading = [
  'ls',
  'cat package.json | head -5',
  'echo $((1+2))',
  '[[ -f x ]]',
  '[[ $a == b ]]',
  'echo ${#arr[@]} ${arr[0]} ${x:0:3}',
  '[[ -n $a && $a != b ]]',
]

describe('a command that makes bash evaluate a value', () => {
  // ci mode runs no command without an allow rule, read-only or not.
  it.each<[Mode, Decision, boolean]>([
    ['safe', 'ask', false],
    ['auto', 'ask', false],
    ['plan', 'deny', false],
    ['ci', 'deny', false],
    ['dangerous', 'allow', false],
    ['auto', 'allow', true],
    ['plan', 'deny', true],
  ])('in %s mode: %s (sandboxed: %s)', (mode, decision, sandboxed) => {
    for (const command of evaluating)
      expect([command, decide(mode, command, sandboxed).decision]).toEqual([command, decision])
  })

  it('says what bash evaluates', () => {
    const result = decide('safe', 'x=$(cat VERSION); echo ${x:x:1}')
    expect(result.reason).toContain('`${x:x:1}` makes bash evaluate a value as code')
    expect(decide('safe', 'x=$(cat VERSION); [[ $x -eq 3 ]]').reason).toContain('`[[ $x -eq 3 ]]` makes bash')
  })

  it('an allow rule for the program does not let it through; one for the whole tool does', () => {
    expect(decide('ci', 'echo ${arr[x]}', false, ['Bash(echo *)']).decision).toBe('deny')
    expect(decide('ci', 'echo ${arr[0]} $x', false, ['Bash(echo *)']).decision).toBe('allow')
    expect(decide('ci', 'echo ${arr[x]}', false, ['Bash']).decision).toBe('allow')
  })

  it.each(reading)('%j stays read-only (allowed in plan, and safe, without asking)', (command) => {
    expect(decide('plan', command).decision).toBe('allow')
    expect(decide('safe', command).decision).toBe('allow')
  })
})
