import { describe, expect, it } from 'vitest'
import { createAgentTool, AGENT_DESCRIPTION_BUDGET } from '../../../source/tools/agent.js'
import { closestNames, fitListing, oneLine } from '../../../source/tools/listing.js'
import { describeSkills, SKILL_DESCRIPTION_BUDGET } from '../../../source/tools/skill.js'

const bytes = (text: string) => Buffer.byteLength(text, 'utf8')
const entries = (n: number, description = 'Does one thing well. '.repeat(12)) =>
  Array.from({ length: n }, (_, i) => ({ name: `item-${String(i).padStart(3, '0')}`, description }))
const line = (e: { name: string }, d: string) => `- ${e.name}: ${d}`
const text = (l: { lines: string[]; namesOnly: string[]; hidden: number }) =>
  ['head', ...l.lines, `names: ${l.namesOnly.join(', ')}`, `${l.hidden} more`].join('\n')
const render = { line, text }

describe('oneLine', () => {
  it.each([
    ['a short line as it is', 'Reviews diffs.', 80, 'Reviews diffs.'],
    ['blanks collapsed', 'Reviews\n  diffs\tnow.', 80, 'Reviews diffs now.'],
    [
      'up to the first example',
      'Use this agent when asked. Examples:\n\n<example>\nContext: x\nuser: "y"\n</example>',
      80,
      'Use this agent when asked.',
    ],
    ['up to the first blank line', 'First paragraph.\n\nSecond one.', 80, 'First paragraph.'],
    ['cut at a word with an ellipsis', 'alpha beta gamma delta epsilon', 18, 'alpha beta gamma…'],
  ])('%s', (_label, text, cap, expected) => {
    expect(oneLine(text, cap)).toBe(expected)
  })
})

describe('fitListing', () => {
  it('lists every entry with a description when they fit', () => {
    const listing = fitListing(entries(5), 10_000, render)
    expect(listing.lines).toHaveLength(5)
    expect(listing).toMatchObject({ namesOnly: [], hidden: 0 })
  })

  it('shortens the lines before leaving descriptions out', () => {
    const listing = fitListing(entries(40), 4000, render)
    expect(listing.lines).toHaveLength(40)
    expect(listing.lines.join('\n').length).toBeLessThanOrEqual(3900)
    expect(listing.lines[0]).toMatch(/…$/)
  })

  it.each([150, 300, 1000])('keeps %i entries within the budget: lines, then names, then a count', (n) => {
    const listing = fitListing(entries(n), 8000, render)
    expect(bytes(text(listing))).toBeLessThanOrEqual(8000)
    expect(listing.lines.length + listing.namesOnly.length + listing.hidden).toBe(n)
    expect(listing.lines.length).toBeGreaterThan(0)
    // Names are cheaper than lines: every name is there unless even the names alone would not fit.
    if (listing.hidden > 0) expect(listing.namesOnly.length).toBeGreaterThan(0)
    else expect(listing.namesOnly.length + listing.lines.length).toBe(n)
  })
})

describe('closestNames', () => {
  const names = ['code-reviewer', 'review-pr', 'backend-architect', 'security-auditor', 'Code-Helper']
  it.each([
    ['code-review', ['code-reviewer', 'Code-Helper', 'review-pr']],
    ['architect', ['backend-architect']],
    ['CODE-REVIEWER', ['code-reviewer', 'Code-Helper', 'review-pr']],
    ['zzz', []],
  ])('%s', (wanted, expected) => {
    expect(closestNames(wanted, names)).toEqual(expected)
  })
})

describe('the Skill and Agent descriptions stay within their budgets', () => {
  it.each([0, 3, 100, 181, 2000])('Skill with %i skills', (n) => {
    const list = entries(n, 'Build things. '.repeat(100)).map((e) => ({
      ...e,
      dir: '/s',
      path: '/s/SKILL.md',
    }))
    const text = describeSkills(list, true)
    expect(bytes(text)).toBeLessThanOrEqual(SKILL_DESCRIPTION_BUDGET)
    if (n === 0) return
    expect(text).toContain(`<skill name="item-000">`)
    if (n >= 2000) expect(text).toMatch(/\d+ more skills are not listed: call Skill with the name you expect/)
  })

  it.each([4, 137, 300, 2000])('Agent with %i agent types', (n) => {
    const list = entries(n).map((e) => ({ ...e, tools: 'Read, Grep, Glob, Bash' }))
    const text = createAgentTool(list).description
    expect(bytes(text)).toBeLessThanOrEqual(AGENT_DESCRIPTION_BUDGET)
    expect(text).toContain('- item-000: ')
    if (n > 100) expect(text).toMatch(/More agent types, by name: |more agent types are not listed/)
  })

  it('a small setup is listed whole, as before', () => {
    const text = describeSkills(
      [{ name: 'pdf', description: 'Extract text from PDFs', dir: '/p', path: '/p/SKILL.md' }],
      false,
    )
    expect(text).toContain(
      '<available_skills>\n<skill name="pdf">Extract text from PDFs</skill>\n</available_skills>',
    )
    expect(text).not.toContain('More skills')
  })
})
