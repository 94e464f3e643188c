import { z } from 'zod'
import type { ToolDefinition } from '../provider/messages.js'
import type { AnyTool } from '../tools/types.js'

/**
 * Generates the tool definitions once per session. The same array (same order, same bytes) is sent with
 * every request; availability changes go through tool_choice and the executor, never through this list.
 */
export function buildToolDefinitions(tools: readonly AnyTool[]): ToolDefinition[] {
  return tools.map((tool) => {
    const schema = tool.parameters
      ? { ...tool.parameters }
      : (z.toJSONSchema(tool.schema, { io: 'input' }) as Record<string, unknown>)
    delete schema.$schema
    return {
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: schema },
    }
  })
}
