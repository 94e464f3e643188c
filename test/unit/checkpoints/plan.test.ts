import { describe, expect, it } from 'vitest'
import { classifyChanges } from '../../../source/checkpoints/plan.js'
import type { TreeChange } from '../../../source/checkpoints/types.js'

const blob = (id: string) => ({ mode: '100644', blob: id })
const change = (path: string, before: string | null, after: string | null, nested = false): TreeChange => ({
  path,
  before: before ? blob(before) : null,
  after: after ? blob(after) : null,
  nested,
})

describe('classifyChanges', () => {
  it.each<[string, TreeChange, Record<string, string | null>, string]>([
    ['edited by the agent, as it left it → restore', change('a', 'b1', 'b2'), { a: 'b2' }, 'restore'],
    ['deleted by the agent → restore', change('a', 'b1', null), { a: null }, 'restore'],
    ['created by the agent → remove', change('a', null, 'b2'), { a: 'b2' }, 'remove'],
    ['edited by the agent, then by someone else → outside', change('a', 'b1', 'b3'), { a: 'b2' }, 'outside'],
    ['never touched by the agent → outside', change('a', 'b1', 'b3'), {}, 'outside'],
    ['created outside the agent → outside', change('a', null, 'b3'), {}, 'outside'],
    ['deleted by the agent, recreated outside → outside', change('a', 'b1', 'b3'), { a: null }, 'outside'],
    ['nested repository → kept', change('v', 'b1', 'b2', true), { v: 'b2' }, 'kept:nested-repo'],
  ])('%s', (_name, c, known, expected) => {
    const out = classifyChanges([c], known, new Set(), false)
    const got =
      out.restore.length > 0
        ? 'restore'
        : out.remove.length > 0
          ? 'remove'
          : out.outside.length > 0
            ? 'outside'
            : `kept:${out.kept[0]?.reason}`
    expect(got).toBe(expected)
  })

  it('never touches a path over the size cap, agent-changed or not', () => {
    const out = classifyChanges([change('big', 'b1', null)], { big: null }, new Set(['big']), true)
    expect(out).toMatchObject({
      restore: [],
      remove: [],
      outside: [],
      kept: [{ path: 'big', reason: 'size-cap' }],
    })
  })

  it('with force, applies the outside changes too and still lists them as outside', () => {
    const out = classifyChanges(
      [change('mine', 'b1', 'b2'), change('theirs', 'b1', 'b9'), change('new', null, 'b9')],
      { mine: 'b2' },
      new Set(),
      true,
    )
    expect(out.restore).toEqual(['mine', 'theirs'])
    expect(out.remove).toEqual(['new'])
    expect(out.outside).toEqual(['theirs', 'new'])
    expect(out.written).toEqual({ mine: 'b1', theirs: 'b1', new: null })
  })
})
