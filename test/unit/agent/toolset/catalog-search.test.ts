import { describe, expect, it } from 'vitest'
import { catalogText, firstSentence } from '../../../../source/agent/toolset/catalog-text.js'
import { searchTools, tokens } from '../../../../source/agent/toolset/search.js'
import { searchResult } from '../../../../source/agent/toolset/finder-tools.js'

const tool = (name: string, description: string, props: string[] = []) => ({
  name,
  description,
  parameters: { type: 'object', properties: Object.fromEntries(props.map((p) => [p, { type: 'string' }])) },
})

const corpus = [
  tool('mcp__notion__API-post-search', 'Search by title across pages and databases.', ['query']),
  tool('mcp__notion__API-post-page', 'Create a page in a database or under a page.', [
    'parent',
    'properties',
  ]),
  tool('mcp__notion__API-patch-page', 'Update page properties.', ['page_id']),
  tool('mcp__github__create_issue', 'Create a new issue in a GitHub repository.', ['owner', 'repo', 'title']),
  tool('mcp__github__list_issues', 'List issues in a GitHub repository.', ['owner', 'repo', 'state']),
  tool('NotebookEdit', 'Replaces, inserts or deletes a cell of a Jupyter notebook.', ['notebook_path']),
  tool('WebFetch', 'Fetches a URL and returns its content as Markdown.', ['url']),
]

describe('tokens', () => {
  it.each([
    ['mcp__notion__API-post-search', ['mcp', 'notion', 'api', 'post', 'search']],
    ['NotebookEdit', ['notebook', 'edit']],
    ['create_issues', ['create', 'issue']],
    ['list of Libraries', ['list', 'of', 'library']],
  ])('%s', (text, words) => expect(tokens(text)).toEqual(words))
})

describe('searchTools: the ranking', () => {
  const top = (query: string, limit = 3) => searchTools(query, corpus, limit).matches.map((t) => t.name)

  it.each([
    ['create a github issue', 'mcp__github__create_issue'],
    ['list issues', 'mcp__github__list_issues'],
    ['search pages', 'mcp__notion__API-post-search'],
    ['jupyter notebook cell', 'NotebookEdit'],
    ['fetch url', 'WebFetch'],
    ['webfetch', 'WebFetch'],
    ['update page', 'mcp__notion__API-patch-page'],
    // An exact name beats every word match.
    ['mcp__notion__API-post-page', 'mcp__notion__API-post-page'],
  ])('%j finds %s first', (query, first) => expect(top(query)[0]).toBe(first))

  it('a tool that matches every word beats one that matches one word strongly', () => {
    expect(top('create page')[0]).toBe('mcp__notion__API-post-page')
  })

  it('finds nothing for unrelated words or stop words only, and reports the rest beyond the limit', () => {
    expect(top('kubernetes')).toEqual([])
    expect(top('the of a')).toEqual([])
    const r = searchTools('issue page', corpus, 1)
    expect(r.matches).toHaveLength(1)
    expect(r.more.length).toBeGreaterThan(0)
  })

  it('select: picks exact names (case-insensitive) and a tool part of an MCP name; unknown ones are named', () => {
    const r = searchTools('select:webfetch, create_issue,nope', corpus, 5)
    expect(r.matches.map((t) => t.name)).toEqual(['WebFetch', 'mcp__github__create_issue'])
    expect(r.unknown).toEqual(['nope'])
  })
})

describe('searchResult', () => {
  const found = corpus.map((t) => ({ ...t, sent: t.name === 'WebFetch' }))

  it('returns the definitions of the matches, says how to call them, and marks a tool already sent', () => {
    const text = searchResult('select:create_issue,WebFetch', found, 5, 10_000)
    expect(text).toContain('Call one with CallTool')
    expect(text).toContain('## mcp__github__create_issue\nCreate a new issue')
    expect(text).toContain('Arguments (JSON Schema): {"type":"object","properties":{"owner"')
    expect(text).toContain('## WebFetch (already in your tool list: call it directly)')
  })

  it('within its budget the best match comes whole and the rest by name', () => {
    const text = searchResult('issue', found, 5, 10)
    expect(text.match(/^## /gm)).toHaveLength(1)
    expect(text).toMatch(
      /Also found \(their definitions did not fit here; select them by name\): mcp__github__/,
    )
  })

  it('no match lists the tools on demand by name', () => {
    const text = searchResult('kubernetes', found, 5, 10_000)
    expect(text).toContain('No tool matches "kubernetes"')
    expect(text).toContain('mcp__notion__API-post-search')
    expect(text).not.toContain('WebFetch')
  })
})

describe('catalogText', () => {
  const entries = corpus.map(({ name, description }) => ({ name, description }))

  it('lists each tool by name and its first sentence while that fits', () => {
    const { text, form } = catalogText(entries, 10_000)
    expect(form).toBe('lines')
    expect(text.split('\n')).toHaveLength(entries.length)
    expect(text).toContain('- mcp__github__create_issue: Create a new issue in a GitHub repository.')
  })

  it('past the budget, names grouped by server; past that, a count per server', () => {
    const names = catalogText(entries, 250)
    expect(names.form).toBe('names')
    expect(names.text).toContain('- mcp__notion__: API-post-search, API-post-page, API-patch-page')
    expect(names.text).toContain('- NotebookEdit, WebFetch')
    const counts = catalogText(entries, 120)
    expect(counts.form).toBe('counts')
    expect(counts.text).toContain('- mcp__notion__* (3 tools)')
    expect(Buffer.byteLength(counts.text)).toBeLessThanOrEqual(120)
  })

  it('is the same text for the same tools (byte-stable)', () => {
    expect(catalogText(entries, 250)).toEqual(catalogText([...entries], 250))
  })

  it.each([
    ['Search pages. Then more.', 'Search pages.'],
    ['no full stop  at\nall', 'no full stop at all'],
    ['x'.repeat(200), `${'x'.repeat(89)}…`],
  ])('firstSentence(%j)', (text, line) => expect(firstSentence(text)).toBe(line))
})
