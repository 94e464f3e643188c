import { describe, expect, it } from 'vitest'
import { announce } from '../../../source/mcp/announce.js'

const tool = (name: string, description: string) => ({
  name: `mcp__s__${name}`,
  server: 's',
  description,
  parameters: { type: 'object', properties: { q: { type: 'string' } } },
})

describe('announce, with tools on demand', () => {
  const available = [tool('search', 'Searches pages.\nSecond line.'), tool('create', 'x'.repeat(300))]

  it('lists new tools by name and one line, to be found with ToolSearch, without their schemas', () => {
    const a = announce(new Map(), available, [], { brief: { finder: 'ToolSearch', caller: 'CallTool' } })
    expect(a?.text.split('\n')).toEqual([
      'MCP tools became available after this session started (or changed). They are tools on demand: get a tool\'s schema with ToolSearch ("select:NAME") and call it through CallTool:',
      '- mcp__s__search (server s): Searches pages. Second line.',
      `- mcp__s__create (server s): ${'x'.repeat(119)}…`,
    ])
    expect(a?.text).not.toContain('"properties"')
  })

  it('leaves out what the mask does not offer, and says nothing when nothing is left', () => {
    const offers = (name: string) => name !== 'mcp__s__create'
    const a = announce(new Map(), available, [], { offers })
    expect(a?.text).toContain('mcp__s__search')
    expect(a?.text).not.toContain('mcp__s__create')
    expect([...(a?.offered.keys() ?? [])]).toEqual(['mcp__s__search'])
    expect(announce(new Map(), available, [], { offers: () => false })).toBeNull()
  })
})
