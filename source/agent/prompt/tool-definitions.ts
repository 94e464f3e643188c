import { z } from 'zod'
import type { ToolDefinition } from '../../store/messages.js'
import type { AnyTool } from '../../tools/types.js'
import { COMPACT_DESCRIPTIONS } from './compact-tools.js'

/** The full descriptions, or the compact ones of a small-window model (the model profile's promptVariant). */
export type DescriptionVariant = 'full' | 'compact'

export type DefinitionBuilder = (tools: readonly AnyTool[]) => ToolDefinition[]

/**
 * Generates the tool definitions once per session. The same array (same order, same bytes) is sent with
 * every request; availability changes go through tool_choice and the executor, never through this list.
 */
export function buildToolDefinitions(
  tools: readonly AnyTool[],
  variant: DescriptionVariant = 'full',
): ToolDefinition[] {
  return tools.map((tool) => definitionOf(tool, variant))
}

/**
 * A session's builder that converts each tool's schema once: the main session and every subagent that
 * gets a tool send the very same definition, and a subagent starts without converting schemas again.
 */
export function cachedDefinitions(variant: DescriptionVariant = 'full'): DefinitionBuilder {
  const generated = new WeakMap<AnyTool, ToolDefinition>()
  return (tools) =>
    tools.map((tool) => {
      let definition = generated.get(tool)
      if (!definition) {
        definition = definitionOf(tool, variant)
        generated.set(tool, definition)
      }
      return definition
    })
}

function definitionOf(tool: AnyTool, variant: DescriptionVariant): ToolDefinition {
  return {
    type: 'function',
    function: { name: tool.name, description: descriptionOf(tool, variant), parameters: parametersOf(tool) },
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

/** An MCP tool (it brings `parameters`) keeps its server's description even if its name is a built-in's. */
function descriptionOf(tool: AnyTool, variant: DescriptionVariant): string {
  if (variant === 'full' || tool.parameters) return tool.description
  return Object.hasOwn(COMPACT_DESCRIPTIONS, tool.name)
    ? (COMPACT_DESCRIPTIONS[tool.name] as string)
    : tool.description
}
