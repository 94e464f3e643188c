import type { ToolCall } from '../../store/messages.js'
import type { AnyTool } from '../../tools/types.js'
import { encodeArguments, parseToolArguments } from './arguments.js'
import type { CallFailure } from './outcome.js'

/**
 * The resolve phase of the tool-call pipeline (pipeline.ts): the tool a call runs. That is the tool the
 * model named, or, for the generic call tool (docs/tools.md#tools-on-demand) — `CallTool {name,
 * arguments}`, which runs a tool whose definition is not sent with every request — the tool it names:
 * every later phase (validation against the tool's own schema, hooks, permissions, the consent preview,
 * checkpoints, the card) sees the real tool. Pure.
 */

export const CALL_TOOL = 'CallTool'
export const TOOL_SEARCH = 'ToolSearch'

/** The session's tools by name (a Map, or the session's built-in + MCP lookup). */
export interface ToolLookup {
  get(name: string): AnyTool | undefined
  keys(): Iterable<string>
  /** Why a tool the session knows is not offered to the model (a mask), if it is not. */
  unavailable?(name: string): string | undefined
}

/** What the resolve phase found: the tool that runs, and the arguments to validate for it. */
export interface Resolved {
  tool: AnyTool
  /** The arguments as JSON text (the call's own, or those a CallTool call carries). */
  raw: string
  parsed?: { value: unknown }
  /** The call came through CallTool (forwardedCall): the history keeps that form. */
  forwarded?: true
}

/**
 * resolve: the tool the model named; an unknown name lists the tools there are. A CallTool call is
 * unwrapped into the tool it names, so the phases after this one see only the real tool.
 */
export function resolve(
  call: ToolCall,
  tools: ToolLookup,
  parsed?: { value: unknown },
): Resolved | { failure: CallFailure } {
  const name = call.function.name
  const tool = tools.get(name)
  if (!tool) return { failure: unknownTool(name, tools) }
  const raw = call.function.arguments
  if (name !== CALL_TOOL) return { tool, raw, ...(parsed ? { parsed } : {}) }
  const outer = parsed ? { ok: true as const, value: parsed.value } : parseToolArguments(raw)
  if (!outer.ok)
    return {
      failure: {
        category: 'validation',
        message: outer.error,
        hint: 'send the arguments as one JSON object',
      },
    }
  const forwarded = forwardedCall(outer.value, tools)
  if ('failure' in forwarded) return forwarded
  return {
    tool: forwarded.tool,
    raw: encodeArguments(forwarded.args) ?? '{}',
    parsed: { value: forwarded.args },
    forwarded: true,
  }
}

function unknownTool(name: string, tools: ToolLookup): CallFailure {
  const why = tools.unavailable?.(name)
  if (why) {
    return {
      category: 'not_found',
      message: `${name} is not available in this session: ${why}`,
      hint: 'use another tool, or ask the user',
    }
  }
  const onDemand = tools.get(TOOL_SEARCH)
    ? `; more tools on demand: find them with ${TOOL_SEARCH}, call them through ${CALL_TOOL}`
    : ''
  return {
    category: 'not_found',
    message: `unknown tool "${name}"`,
    hint: `available tools: ${[...tools.keys()].join(', ')}${onDemand}`,
  }
}

const FORM = 'call CallTool with {"name": "<tool name>", "arguments": {<the tool\'s arguments>}}'

/** The tool a CallTool call names and the arguments to run it with, or why it cannot run. */
export function forwardedCall(
  value: unknown,
  tools: ToolLookup,
): { tool: AnyTool; args: unknown } | { failure: CallFailure } {
  const fields = isObject(value) ? value : undefined
  const name = fields?.name
  if (typeof name !== 'string' || name.trim() === '')
    return invalid('"name" must be the name of the tool to call', FORM)
  if (name === CALL_TOOL) return invalid('CallTool cannot call CallTool', FORM)
  const extra = Object.keys(fields ?? {}).filter((k) => k !== 'name' && k !== 'arguments')
  if (extra.length)
    return invalid(
      `unexpected field${extra.length === 1 ? '' : 's'} ${extra.map((k) => `"${k}"`).join(', ')}: CallTool takes only "name" and "arguments"`,
      `put ${name}'s arguments inside "arguments": ${FORM}`,
    )
  const tool = tools.get(name)
  if (!tool) {
    const why = tools.unavailable?.(name)
    return {
      failure: {
        category: 'not_found',
        message: why ? `${name} is not available in this session: ${why}` : `unknown tool "${name}"`,
        hint: why
          ? 'use another tool, or ask the user'
          : `find the tool's exact name with ${TOOL_SEARCH} (words describing what you need), then ${FORM}`,
      },
    }
  }
  const args = fields?.arguments
  if (args === undefined) return { tool, args: {} }
  if (typeof args === 'string') {
    // Models used to OpenAI's wire format send the arguments as a JSON string: read it the same way.
    const parsed = parseToolArguments(args)
    if (!parsed.ok) return invalid(`"arguments" is a string that is not a JSON object: ${parsed.error}`, FORM)
    return { tool, args: parsed.value }
  }
  if (!isObject(args)) return invalid('"arguments" must be a JSON object', FORM)
  return { tool, args }
}

function invalid(message: string, hint: string): { failure: CallFailure } {
  return { failure: { category: 'validation', message: `invalid CallTool call: ${message}`, hint } }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
