import { describe, expect, it } from 'vitest'
import { createArgumentChecks } from '../../../source/mcp/argument-check.js'
import { checkingSchema, MAX_DESCRIPTION, OVERSIZED, trimSchema } from '../../../source/mcp/schema-trim.js'
import { bigToolList } from '../../support/big-schemas.ts'

const small = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  $comment: 'generated',
  type: 'object',
  properties: {
    page_id: { title: 'Page ID', type: 'string', description: 'The page', default: 'x', examples: ['y'] },
    sort: { title: 'How to order', type: 'string', enum: ['asc', 'desc'] },
    // A property named like a keyword is data, not a keyword.
    title: { title: 'Title', type: 'string' },
    $comment: { type: 'string', description: 'a property so named' },
  },
  required: ['page_id'],
}

describe('trimSchema', () => {
  it('a small schema: only what no call needs goes ($schema, $comment, titles repeating the name)', () => {
    expect(trimSchema(small)).toEqual({
      type: 'object',
      properties: {
        page_id: { type: 'string', description: 'The page', default: 'x', examples: ['y'] },
        sort: { title: 'How to order', type: 'string', enum: ['asc', 'desc'] },
        title: { type: 'string' },
        $comment: { type: 'string', description: 'a property so named' },
      },
      required: ['page_id'],
    })
  })

  it('an oversized schema also loses examples, defaults and long descriptions; types, enums, required stay', () => {
    const long = 'word '.repeat(200)
    const schema = {
      type: 'object',
      description: long,
      properties: Object.fromEntries(
        Array.from({ length: 20 }, (_, i) => [
          `p${i}`,
          {
            type: 'object',
            description: long,
            default: {},
            examples: [{ a: 1 }],
            properties: { kind: { type: 'string', enum: ['a', 'b'], const: undefined } },
            required: ['kind'],
          },
        ]),
      ),
      required: ['p0'],
    }
    expect(JSON.stringify(schema).length).toBeGreaterThan(OVERSIZED)
    const trimmed = trimSchema(schema) as {
      description: string
      properties: Record<string, Record<string, unknown>>
    }
    expect(trimmed.description.length).toBeLessThanOrEqual(MAX_DESCRIPTION)
    const p0 = trimmed.properties.p0 ?? {}
    expect(p0).not.toHaveProperty('default')
    expect(p0).not.toHaveProperty('examples')
    expect(p0.required).toEqual(['kind'])
    expect(p0.properties).toEqual({ kind: { type: 'string', enum: ['a', 'b'] } })
    expect(Object.keys(trimmed.properties)).toHaveLength(20)
  })

  it('the big test server: every tool loses at least an eighth, and keeps every property', () => {
    for (const tool of bigToolList({ count: 24, kilobytes: 80 })) {
      const before = JSON.stringify(tool.inputSchema).length
      const trimmed = trimSchema(tool.inputSchema)
      expect(JSON.stringify(trimmed).length).toBeLessThan(before * 0.875)
      expect(Object.keys(trimmed.properties as object)).toEqual(
        Object.keys(tool.inputSchema.properties as object),
      )
      expect(trimmed.required).toEqual(tool.inputSchema.required)
    }
  })
})

describe('argument checks against the full schema', () => {
  const checks = createArgumentChecks()

  it.each<[string, Record<string, unknown>, string | null]>([
    ['valid', { page_id: 'a', sort: 'asc' }, null],
    ['a required property missing', { sort: 'asc' }, "the arguments must have required property 'page_id'"],
    [
      'a value outside the enum',
      { page_id: 'a', sort: 'up' },
      'sort must be equal to one of the allowed values',
    ],
    ['a wrong type', { page_id: 3 }, 'page_id must be string'],
  ])('%s', (_, args, problem) => {
    expect(checks(small)(args)).toBe(problem)
  })

  it('does not refuse keys the server would strip (additionalProperties: false is not enforced here)', () => {
    const strict = { ...small, additionalProperties: false }
    expect(checkingSchema(strict)).not.toHaveProperty('additionalProperties')
    expect(checks(strict)({ page_id: 'a', extra: 1 })).toBeNull()
  })

  it('a schema the validator cannot read lets the server judge', () => {
    expect(checks({ type: 'object', properties: { a: { $ref: '#/nowhere' } } })({ a: 1 })).toBeNull()
    expect(
      checks({ $schema: 'http://json-schema.org/draft-04/schema#', type: 'object', required: ['a'] })({}),
    ).toBe("the arguments must have required property 'a'")
  })
})
