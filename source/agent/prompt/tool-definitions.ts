import { z } from 'zod'
import type { ToolDefinition } from '../../store/messages.js'
import type { AnyTool } from '../../tools/types.js'

export type DefinitionBuilder = (tools: readonly AnyTool[]) => ToolDefinition[]

/**
 * Generates the tool definitions once per session. The same array (same order, same bytes) is sent with
 * every request; availability changes go through tool_choice and the executor, never through this list.
 */
export function buildToolDefinitions(tools: readonly AnyTool[]): ToolDefinition[] {
  return tools.map(definitionOf)
}

/**
 * A session's builder that converts each tool's schema once: the main session and every subagent that
 * gets a tool send the very same definition, and a subagent starts without converting schemas again.
 */
export function cachedDefinitions(): DefinitionBuilder {
  const generated = new WeakMap<AnyTool, ToolDefinition>()
  return (tools) =>
    tools.map((tool) => {
      let definition = generated.get(tool)
      if (!definition) {
        definition = definitionOf(tool)
        generated.set(tool, definition)
      }
      return definition
    })
}

function definitionOf(tool: AnyTool): ToolDefinition {
  return {
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: parametersOf(tool) },
  }
}

/** The JSON Schema of a tool's arguments as the model is sent it. */
export function parametersOf(tool: AnyTool): Record<string, unknown> {
  // MCP tools bring their JSON Schema as the server sent it (trimmed: mcp/schema-trim.ts).
  const schema = tool.parameters
    ? { ...tool.parameters }
    : (z.toJSONSchema(tool.schema, { io: 'input' }) as Record<string, unknown>)
  delete schema.$schema
  return schema
}
