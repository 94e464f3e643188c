import { describe, expect, it } from 'vitest'
import { evaluate, type PolicyInput, type RuleSet } from '../../../source/permissions/policy.js'
import { matchRule, parseRule } from '../../../source/permissions/rules.js'
import { directoryRule, suggestRule } from '../../../source/permissions/suggest-rule.js'
import type { PathTarget, PermissionTarget } from '../../../source/permissions/target.js'
import type { Mode } from '../../../source/store/domain.js'

/** apply_patch's several-file targets and DeleteFile's no-follow target, as the policy judges them. */

const workspace = '/work/proj'
const home = '/home/u'

function rules(spec: { allow?: string[]; ask?: string[]; deny?: string[] } = {}): RuleSet {
  const parse = (list: string[] = []) => list.map((text) => parseRule(text, 'settings'))
  return { allow: parse(spec.allow), ask: parse(spec.ask), deny: parse(spec.deny) }
}

const file = (path: string, extra: Partial<PathTarget> = {}): PathTarget => {
  const abs = path.startsWith('/') ? path : `${workspace}/${path}`
  return { kind: 'path', path: abs, access: 'write', real: abs, ...extra }
}
const paths = (...files: PathTarget[]): PermissionTarget => ({ kind: 'paths', paths: files })

function decide(
  mode: Mode,
  tool: string,
  target: PermissionTarget,
  spec: Parameters<typeof rules>[0] = {},
  extra: Partial<PolicyInput> = {},
) {
  return evaluate({
    mode,
    tool,
    risk: 'edit',
    target,
    readOnly: false,
    rules: rules(spec),
    workspace,
    home,
    ...extra,
  })
}

describe('a patch of several files', () => {
  it('is allowed by a rule only when the rule covers every file', () => {
    const target = paths(file('src/a.ts'), file('docs/b.md'))
    expect(decide('safe', 'apply_patch', target, { allow: ['Edit(src/**)'] }).decision).toBe('ask')
    expect(decide('safe', 'apply_patch', target, { allow: ['Edit(src/**)', 'Edit(docs/**)'] }).decision).toBe(
      'allow',
    )
    expect(decide('ci', 'apply_patch', target, { allow: ['Edit(src/**)'] }).decision).toBe('deny')
    expect(decide('ci', 'apply_patch', target, { allow: ['Edit(**)'] }).decision).toBe('allow')
  })

  it('is denied when a deny rule names any one of its files, naming it', () => {
    const result = decide('dangerous', 'apply_patch', paths(file('src/a.ts'), file('secrets/k.txt')), {
      deny: ['Edit(secrets/**)'],
    })
    expect(result.decision).toBe('deny')
    expect(result.reason).toContain('secrets/k.txt')
  })

  it('asks for a protected file at any depth, whatever the allow rules, and auto mode asks too', () => {
    const target = paths(file('src/a.ts'), file('pkg/sub/.agent-tui/settings.json'))
    const safe = decide('safe', 'apply_patch', target, { allow: ['Edit(**)'] })
    expect(safe.decision).toBe('ask')
    expect(safe.protectedWrite).toBe(true)
    expect(decide('auto', 'apply_patch', target).decision).toBe('ask')
    expect(decide('auto', 'apply_patch', paths(file('src/a.ts'), file('src/b.ts'))).decision).toBe('allow')
  })

  it('judges a file outside the workspace as Write would', () => {
    const outside = decide('auto', 'apply_patch', paths(file('src/a.ts'), file('/etc/passwd')))
    expect(outside.decision).not.toBe('allow')
    expect(outside.reason).toContain('/etc/passwd')
  })

  it('is offered one rule per file, or the folder they share', () => {
    const two = paths(file('src/a.ts'), file('src/b.ts'))
    expect(suggestRule('apply_patch', two, workspace, home)).toBe('Edit(src/a.ts), Edit(src/b.ts)')
    expect(directoryRule('apply_patch', paths(file('src/x/a.ts'), file('src/y/b.ts')), workspace)).toBe(
      'Edit(src/**)',
    )
  })
})

describe('a rule against several files (a grant settling pending prompts, a hook)', () => {
  it('grants only when it covers every file, restricts when it names any', () => {
    const call = { tool: 'apply_patch', target: paths(file('src/a.ts'), file('docs/b.md')), workspace, home }
    expect(matchRule(parseRule('Edit(src/**)'), call, 'grant')).toBe(false)
    expect(matchRule(parseRule('Edit(**)'), call, 'grant')).toBe(true)
    expect(matchRule(parseRule('Edit(docs/**)'), call, 'restrict')).toBe(true)
    expect(matchRule(parseRule('Edit(test/**)'), call, 'restrict')).toBe(false)
    expect(matchRule(parseRule('Edit(**)'), { ...call, target: paths() }, 'grant')).toBe(false)
  })
})

describe('DeleteFile', () => {
  it('is an edit: asks in safe mode, allowed in auto inside the workspace, denied in ci and plan', () => {
    const target = file('src/a.ts', { noFollow: true })
    expect(decide('safe', 'DeleteFile', target).decision).toBe('ask')
    expect(decide('auto', 'DeleteFile', target).decision).toBe('allow')
    expect(decide('ci', 'DeleteFile', target).decision).toBe('deny')
    expect(decide('plan', 'DeleteFile', target).decision).toBe('deny')
  })

  it('has its own rule form, DeleteFile(path), and the Edit family covers it', () => {
    const target = file('build/out.js', { noFollow: true })
    expect(decide('ci', 'DeleteFile', target, { allow: ['DeleteFile(build/**)'] }).decision).toBe('allow')
    expect(
      decide('ci', 'DeleteFile', file('src/a.ts', { noFollow: true }), { allow: ['DeleteFile(build/**)'] })
        .decision,
    ).toBe('deny')
    // A DeleteFile rule allows deleting, not editing.
    expect(decide('ci', 'Edit', file('build/out.js'), { allow: ['DeleteFile(build/**)'] }).decision).toBe(
      'deny',
    )
    expect(decide('ci', 'DeleteFile', target, { allow: ['Edit(build/**)'] }).decision).toBe('allow')
    expect(decide('auto', 'DeleteFile', target, { deny: ['DeleteFile(**)'] }).decision).toBe('deny')
    // An ask rule makes auto mode ask before every delete, and leaves edits alone.
    expect(decide('auto', 'DeleteFile', target, { ask: ['DeleteFile'] }).decision).toBe('ask')
    expect(decide('auto', 'Edit', file('build/out.js'), { ask: ['DeleteFile'] }).decision).toBe('allow')
    expect(suggestRule('DeleteFile', target, workspace, home)).toBe('DeleteFile(build/out.js)')
    expect(directoryRule('DeleteFile', target, workspace)).toBe('DeleteFile(build/**)')
    // Never the whole workspace for deletes; edits may have it.
    expect(directoryRule('DeleteFile', file('old.txt', { noFollow: true }), workspace)).toBeUndefined()
    expect(directoryRule('Edit', file('old.txt'), workspace)).toBe('Edit(**)')
  })

  it('a protected file asks whatever the rules', () => {
    const result = decide('safe', 'DeleteFile', file('.agent-tui/settings.json', { noFollow: true }), {
      allow: ['DeleteFile(**)'],
    })
    expect(result.decision).toBe('ask')
    expect(result.protectedWrite).toBe(true)
  })
})
