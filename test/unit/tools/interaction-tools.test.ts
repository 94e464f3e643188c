import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createCatalog } from '../../../source/tools/catalog.js'

interface JsonSchema {
  description?: string
  properties?: Record<string, JsonSchema>
  items?: JsonSchema
  additionalProperties?: boolean
}

/** Every property at every depth, as `path: schema`. */
function properties(schema: JsonSchema, prefix = ''): Array<[string, JsonSchema]> {
  const own = Object.entries(schema.properties ?? {}).flatMap(
    ([name, prop]): Array<[string, JsonSchema]> => [
      [`${prefix}${name}`, prop],
      ...properties(prop, `${prefix}${name}.`),
    ],
  )
  return schema.items ? [...own, ...properties(schema.items, `${prefix}[].`)] : own
}

// The state and interaction tools of the catalog (docs/tools.md#the-tools), in its order.
const INTERACTION = [
  'TaskOutput',
  'TaskStop',
  'TodoWrite',
  'AskUserQuestion',
  'Config',
  'ExitPlanMode',
  'NotebookEdit',
]
const interactionTools = () =>
  createCatalog({ isReadOnlyCommand: () => false }).filter((t) => INTERACTION.includes(t.name))

describe('the interaction tools', () => {
  const tools = interactionTools()

  it('returns the seven tools in Claude Code order with their risk classes', () => {
    expect(tools.map((t) => [t.name, t.risk])).toEqual([
      ['TaskOutput', 'read'],
      ['TaskStop', 'exec'],
      ['TodoWrite', 'read'],
      ['AskUserQuestion', 'read'],
      ['Config', 'config'],
      ['ExitPlanMode', 'read'],
      ['NotebookEdit', 'edit'],
    ])
    expect(interactionTools()).not.toBe(tools)
  })

  it('generates strict JSON Schemas with Claude Code field names and a description on every field', () => {
    const fields: Record<string, string[]> = {}
    for (const tool of tools) {
      const schema = z.toJSONSchema(tool.schema, { io: 'input' }) as JsonSchema
      expect(schema.additionalProperties, tool.name).toBe(false)
      for (const [path, prop] of properties(schema)) {
        if (path.endsWith('[]') || prop.properties) continue
        expect(prop.description, `${tool.name}.${path}`).toBeTruthy()
      }
      fields[tool.name] = properties(schema).map(([path]) => path)
      expect(tool.description.length).toBeGreaterThan(50)
    }
    expect(fields).toEqual({
      TaskOutput: ['task_id', 'block', 'timeout'],
      TaskStop: ['task_id'],
      TodoWrite: ['todos', 'todos.[].content', 'todos.[].status', 'todos.[].activeForm'],
      AskUserQuestion: [
        'questions',
        'questions.[].question',
        'questions.[].header',
        'questions.[].options',
        'questions.[].options.[].label',
        'questions.[].options.[].description',
        'questions.[].multiSelect',
      ],
      Config: ['setting', 'value'],
      ExitPlanMode: ['plan'],
      NotebookEdit: ['notebook_path', 'cell_id', 'cell_number', 'new_source', 'cell_type', 'edit_mode'],
    })
  })
})
