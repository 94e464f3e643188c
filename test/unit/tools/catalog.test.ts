import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createCoreTools } from '../../../source/tools/catalog.js'

describe('createCoreTools', () => {
  const tools = createCoreTools({ isReadOnlyCommand: () => false })

  it('returns the six core tools in Claude Code order, fresh each call', () => {
    expect(tools.map((t) => t.name)).toEqual(['Bash', 'Read', 'Write', 'Edit', 'Glob', 'Grep'])
    expect(createCoreTools({ isReadOnlyCommand: () => false })).not.toBe(tools)
    expect(tools.map((t) => t.risk)).toEqual(['exec', 'read', 'edit', 'edit', 'read', 'read'])
  })

  it('generates JSON Schemas with the exact field names and a description on every field', () => {
    const fields: Record<string, string[]> = {}
    for (const tool of tools) {
      const schema = z.toJSONSchema(tool.schema, { io: 'input' }) as {
        properties: Record<string, { description?: string }>
        additionalProperties: boolean
      }
      expect(schema.additionalProperties).toBe(false)
      for (const [name, prop] of Object.entries(schema.properties)) {
        expect(prop.description, `${tool.name}.${name}`).toBeTruthy()
      }
      fields[tool.name] = Object.keys(schema.properties)
      expect(tool.description.length).toBeGreaterThan(50)
    }
    expect(fields).toEqual({
      Bash: ['command', 'timeout', 'description', 'run_in_background'],
      Read: ['file_path', 'offset', 'limit'],
      Write: ['file_path', 'content'],
      Edit: ['file_path', 'old_string', 'new_string', 'replace_all'],
      Glob: ['pattern', 'path'],
      Grep: [
        'pattern',
        'path',
        'glob',
        'type',
        'output_mode',
        '-i',
        '-n',
        '-A',
        '-B',
        '-C',
        'multiline',
        'head_limit',
        'offset',
      ],
    })
  })

  it('rejects unknown fields', () => {
    const read = tools.find((t) => t.name === 'Read')
    expect(read?.schema.safeParse({ file_path: 'x', bogus: 1 }).success).toBe(false)
  })
})

describe('createCatalog', () => {
  it('lists every tool of this build once, in the order of docs/tools.md', async () => {
    const { createCatalog } = await import('../../../source/tools/catalog.js')
    const names = createCatalog({ isReadOnlyCommand: () => false }).map((t) => t.name)
    expect(names).toEqual([
      'Bash',
      'TaskOutput',
      'TaskStop',
      'Read',
      'Write',
      'Edit',
      'Glob',
      'Grep',
      'TodoWrite',
      'AskUserQuestion',
      'Config',
      'ExitPlanMode',
      'WebFetch',
      'WebSearch',
      'NotebookEdit',
      'MultiEdit',
      'DeleteFile',
    ])
  })

  it('adds SaveMemory with a memory reader, and apply_patch as the profile says', async () => {
    const { createCatalog } = await import('../../../source/tools/catalog.js')
    const { testReader } = await import('../../support/instruction-reader.ts')
    const memory = testReader()
    const names = (applyPatch: 'replace' | 'beside' | false) =>
      createCatalog({ isReadOnlyCommand: () => false, memory, applyPatch }).map((t) => t.name)
    expect(names(false).slice(-3)).toEqual(['MultiEdit', 'DeleteFile', 'SaveMemory'])
    expect(names(false)).not.toContain('apply_patch')
    expect(names('beside').slice(-2)).toEqual(['SaveMemory', 'apply_patch'])
    expect(names('beside')).toEqual(expect.arrayContaining(['Write', 'Edit', 'MultiEdit']))
    // In place of the file-editing tools, where Write stood.
    const replaced = names('replace')
    expect(replaced.slice(3, 6)).toEqual(['Read', 'apply_patch', 'Glob'])
    expect(replaced.filter((n) => ['Write', 'Edit', 'MultiEdit'].includes(n))).toEqual([])
    expect(replaced).toContain('DeleteFile')
  })

  it('gives the new tools the schemas other tools and scripts call', async () => {
    const { createCatalog } = await import('../../../source/tools/catalog.js')
    const tools = createCatalog({ isReadOnlyCommand: () => false, applyPatch: 'beside' })
    const fields = (name: string) => {
      const tool = tools.find((t) => t.name === name)
      return Object.keys((z.toJSONSchema(tool!.schema) as { properties: object }).properties)
    }
    expect(fields('apply_patch')).toEqual(['input'])
    expect(fields('MultiEdit')).toEqual(['file_path', 'edits'])
    expect(fields('DeleteFile')).toEqual(['file_path'])
    const multi = tools.find((t) => t.name === 'MultiEdit')!
    expect(
      multi.schema.safeParse({
        file_path: 'a',
        edits: [{ old_string: 'x', new_string: 'y', replace_all: true }],
      }).success,
    ).toBe(true)
    expect(multi.schema.safeParse({ file_path: 'a', edits: [] }).success).toBe(false)
    expect(
      tools.filter((t) => ['apply_patch', 'MultiEdit', 'DeleteFile'].includes(t.name)).map((t) => t.risk),
    ).toEqual(['edit', 'edit', 'edit'])
  })

  it('gives the web tools their Claude Code fields and the network risk', async () => {
    const { createCatalog } = await import('../../../source/tools/catalog.js')
    const web = createCatalog({ isReadOnlyCommand: () => false }).filter((t) => t.name.startsWith('Web'))
    expect(web.map((t) => [t.name, t.risk])).toEqual([
      ['WebFetch', 'network'],
      ['WebSearch', 'network'],
    ])
    const fields = web.map((t) =>
      Object.keys((z.toJSONSchema(t.schema) as { properties: object }).properties),
    )
    expect(fields).toEqual([
      ['url', 'prompt'],
      ['query', 'allowed_domains', 'blocked_domains'],
    ])
  })

  it('sends the same definitions whatever the session configured (summarizer, search provider)', async () => {
    const { createCatalog } = await import('../../../source/tools/catalog.js')
    const { buildToolDefinitions } = await import('../../../source/agent/prompt/tool-definitions.js')
    const bare = buildToolDefinitions(createCatalog({ isReadOnlyCommand: () => false }))
    const configured = buildToolDefinitions(
      createCatalog({
        isReadOnlyCommand: () => false,
        web: {
          search: { provider: 'brave' },
          summarize: async () => ({ text: '', model: 'm' }),
          env: { BRAVE_API_KEY: 'k' },
        },
      }),
    )
    expect(JSON.stringify(configured)).toBe(JSON.stringify(bare))
  })
})
