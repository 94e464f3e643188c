import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { failedOutcome, resultOutcome } from '../../../../source/agent/tool-call/outcome.js'
import {
  annotationsOf,
  passThroughSchema,
  refusalHint,
  toolResultOf,
} from '../../../../source/app/mcp-serve/tool-results.js'
import type { ToolCall } from '../../../../source/store/messages.js'
import { type AnyTool, defineTool } from '../../../../source/tools/types.js'

// What a client of `mcp serve --expose-tools` sees of a tool and of a call's outcome.

const read = defineTool({
  name: 'Read',
  description: 'Reads a file.',
  schema: z.strictObject({ file_path: z.string().describe('the file'), limit: z.number().optional() }),
  risk: 'read',
  isReadOnly: () => true,
  permissionTarget: (a) => ({ kind: 'path', path: a.file_path, access: 'read' }),
  preview: async () => ({ kind: 'none' }),
  summarize: (a) => `Read ${a.file_path}`,
  execute: async () => ({ forModel: 'text' }),
}) as AnyTool

const call: ToolCall = { id: 'c1', type: 'function', function: { name: 'Write', arguments: '{}' } }
const base = { call, name: 'Write', summary: 'Write a', started: 0, now: 1 }

describe('the tool as listed', () => {
  it("lists the tool's own JSON schema and lets every argument through to the pipeline", async () => {
    const schema = passThroughSchema(read)['~standard']
    expect(schema.jsonSchema.input({ target: 'draft-2020-12' })).toMatchObject({
      type: 'object',
      properties: { file_path: { type: 'string', description: 'the file' }, limit: { type: 'number' } },
      required: ['file_path'],
      additionalProperties: false,
    })
    // Checked by the pipeline's validate phase, whose message names the field.
    expect(schema.validate({ nope: 1 })).toEqual({ value: { nope: 1 } })
  })

  it('annotates by risk class', () => {
    expect(annotationsOf(read)).toEqual({ readOnlyHint: true, destructiveHint: false, openWorldHint: false })
    expect(annotationsOf({ ...read, risk: 'exec' } as AnyTool)).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      openWorldHint: true,
    })
    expect(annotationsOf({ ...read, risk: 'network' } as AnyTool)).toMatchObject({ openWorldHint: true })
  })
})

describe('a call as answered', () => {
  it("a result is the tool's text, with its images", () => {
    const outcome = resultOutcome(
      { call, name: 'Read', summary: 'Read a.png' },
      {
        forModel: 'an image',
        images: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,iVBOR' } }],
      },
      { durationMs: 1 },
    )
    expect(toolResultOf(outcome, 'ci')).toEqual({
      content: [
        { type: 'text', text: 'an image' },
        { type: 'image', mimeType: 'image/png', data: 'iVBOR' },
      ],
    })
  })

  it('a tool that ran and failed is an error with its own text', () => {
    const outcome = resultOutcome(
      { call, name: 'Bash', summary: 'Bash false' },
      { forModel: 'exit code 1', failed: true },
      { durationMs: 1 },
    )
    expect(toolResultOf(outcome, 'ci')).toEqual({
      content: [{ type: 'text', text: 'exit code 1' }],
      isError: true,
    })
  })

  it('a refusal an allow rule would lift names the rule and the ceiling, for whoever starts the server', () => {
    const outcome = failedOutcome(base, {
      category: 'permission',
      message: 'Write denied: ci mode denies edits without an allow rule',
      hint: 'do not retry this call; choose another approach or ask the user',
      status: 'denied',
      allowRule: 'Edit(a)',
    })
    expect(toolResultOf(outcome, 'ci')).toEqual({
      isError: true,
      content: [
        {
          type: 'text',
          text: 'Write denied: ci mode denies edits without an allow rule\nthis server judges calls in ci mode (--max-mode ci); to allow this one, start agent-tui mcp serve with --allowed-tools "Edit(a)", or a looser --max-mode',
        },
      ],
    })
  })

  it('a refusal no rule lifts keeps the pipeline hint, saying there is nobody to ask', () => {
    const outcome = failedOutcome(base, {
      category: 'permission',
      message: 'Write needs approval (writes to .git/ always ask) and no user is available',
      hint: 'writes to protected paths are not opened by allow rules; only a user at the consent prompt can allow this one',
      status: 'denied',
      noAllowRule: 'writes to .git/ always ask',
    })
    expect(refusalHint(outcome, 'auto')).toBe(
      'writes to protected paths are not opened by allow rules; only a user at the consent prompt can allow this one (agent-tui mcp serve has none)',
    )
    const bad = failedOutcome(base, {
      category: 'validation',
      message: 'invalid arguments for Write: content: required',
      hint: 'fix the listed fields and call again',
    })
    expect(toolResultOf(bad, 'auto').content[0]).toEqual({
      type: 'text',
      text: 'invalid arguments for Write: content: required\nfix the listed fields and call again',
    })
  })
})
