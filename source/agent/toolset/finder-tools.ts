import { z } from 'zod'
import { type AnyTool, defineTool, ToolError } from '../../tools/types.js'
import { CALL_TOOL, TOOL_SEARCH } from '../tool-call/resolve.js'
import { type Searchable, searchTools } from './search.js'

/**
 * The two tools sent in place of deferred definitions (docs/tools.md#tools-on-demand): ToolSearch finds
 * tools by name or words and returns their definitions; CallTool runs one. Their own definitions are
 * fixed with the rest, the catalog of tools on demand in ToolSearch's description, so the request's
 * `tools` stay byte-identical while the model finds and calls what it needs.
 */

/** A tool ToolSearch can return: its name, description and JSON Schema as the model is sent them. */
export interface FoundTool extends Searchable {
  /** Its definition is in every request already: call it directly. */
  sent: boolean
}

export interface ToolSearchOptions {
  /** The catalog text (catalog-text.ts) listed in the description. */
  catalog: string
  /** The tools to search now: those deferred, MCP tools that came later, and the ones sent. */
  corpus(): FoundTool[]
  /** Bytes of definitions one result may carry; the best match always comes whole. */
  resultBytes: number
}

const DEFAULT_RESULTS = 5

const searchSchema = z.strictObject({
  query: z
    .string()
    .min(1)
    .describe('Words describing what you need ("create a page"), or "select:NAME1,NAME2" for exact names'),
  max_results: z.number().int().min(1).max(20).optional().describe('How many tools to return (default 5)'),
})

const callSchema = z.strictObject({
  name: z.string().min(1).describe('The exact name of the tool to call, as ToolSearch returned it'),
  arguments: z
    .record(z.string(), z.unknown())
    .optional()
    .describe("The tool's arguments, as a JSON object matching the schema ToolSearch returned"),
})

export function createToolSearchTool(opts: ToolSearchOptions): AnyTool {
  return defineTool<z.infer<typeof searchSchema>>({
    name: TOOL_SEARCH,
    description: `Finds tools that are not in your tool list and returns their definitions: name, description and the JSON Schema of their arguments. Then call a found tool with ${CALL_TOOL} ({"name": ..., "arguments": {...}}); it is checked and may ask the user exactly as if it were in your list.
- Query with words describing what you need ("search pages", "create issue"), or "select:NAME" (several: "select:A,B") for exact names.
- Search before saying a capability is missing: these tools are available on demand:
${opts.catalog}`,
    schema: searchSchema,
    risk: 'read',
    isReadOnly: () => true,
    permissionTarget: () => ({ kind: 'none' }),
    async preview(args) {
      return { kind: 'json', text: `ToolSearch ${args.query}` }
    },
    summarize: (args) => args.query,
    async execute(args) {
      const text = searchResult(
        args.query,
        opts.corpus(),
        args.max_results ?? DEFAULT_RESULTS,
        opts.resultBytes,
      )
      return { forModel: text, display: { kind: 'text', text } }
    },
  })
}

/** CallTool's definition; the pipeline's resolve phase runs the tool it names (tool-call/forward.ts). */
export function createCallTool(): AnyTool {
  return defineTool<z.infer<typeof callSchema>>({
    name: CALL_TOOL,
    description: `Calls a tool that is not in your tool list: one ${TOOL_SEARCH} found, or listed in its description. "name" is the tool's exact name, "arguments" its arguments as a JSON object matching the schema ${TOOL_SEARCH} returned. The call runs, is checked and may ask the user exactly as if you had called the tool directly; its result is the tool's result.`,
    schema: callSchema,
    risk: 'read',
    isReadOnly: () => false,
    permissionTarget: () => ({ kind: 'none' }),
    async preview() {
      return { kind: 'none' }
    },
    summarize: (args) => args.name,
    async execute() {
      // Never reached: resolve runs the named tool instead.
      throw new ToolError('execution', `${CALL_TOOL} was not unwrapped into the tool it names`)
    },
  })
}

/** What ToolSearch returns: the matches' definitions within the budget, then the names of the rest. */
export function searchResult(
  query: string,
  corpus: readonly FoundTool[],
  limit: number,
  budgetBytes: number,
): string {
  const { matches, more, unknown } = searchTools(query, corpus, limit)
  const lines: string[] = []
  if (unknown.length) lines.push(`No tool is named ${unknown.map((n) => `"${n}"`).join(', ')}.`)
  if (matches.length === 0) {
    const names = corpus.filter((t) => !t.sent).map((t) => t.name)
    lines.push(
      `No tool matches "${query}". Try other words, or select one of the tools on demand by name: ${names.join(', ') || '(none)'}`,
    )
    return lines.join('\n')
  }
  lines.push(
    `${matches.length} tool${matches.length === 1 ? '' : 's'} found. Call one with ${CALL_TOOL}: {"name": "<name>", "arguments": {…}} (arguments as its schema says).`,
  )
  let used = 0
  const brief: string[] = []
  for (const [i, tool] of matches.entries()) {
    const schema = JSON.stringify(tool.parameters)
    const size = tool.description.length + schema.length
    if (i > 0 && used + size > budgetBytes) {
      brief.push(tool.name)
      continue
    }
    used += size
    lines.push(
      '',
      `## ${tool.name}${tool.sent ? ' (already in your tool list: call it directly)' : ''}`,
      tool.description.trim(),
      `Arguments (JSON Schema): ${schema}`,
    )
  }
  if (brief.length)
    lines.push(
      '',
      `Also found (their definitions did not fit here; select them by name): ${brief.join(', ')}`,
    )
  if (more.length) lines.push('', `Other matches: ${more.join(', ')}`)
  return lines.join('\n')
}
