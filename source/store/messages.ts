/**
 * Model-facing conversation types in the OpenAI chat-completions shape. Plain data: the store keeps
 * the history in this form, the session log persists it, and the provider sends it as is.
 */

export interface TextPart {
  type: 'text'
  text: string
}

export interface ImagePart {
  type: 'image_url'
  image_url: { url: string }
}

export type ContentPart = TextPart | ImagePart

export interface ToolCall {
  id: string
  type: 'function'
  function: { name: string; arguments: string }
}

export interface SystemMessage {
  role: 'system'
  content: string
}

export interface UserMessage {
  role: 'user'
  content: string | ContentPart[]
}

export interface AssistantMessage {
  role: 'assistant'
  content: string | null
  tool_calls?: ToolCall[]
  /** Reasoning text some servers stream (DeepSeek, Qwen, vLLM); kept for display, never sent back. */
  reasoning?: string
}

/** Tool messages carry text only on chat completions; images follow in a user message. */
export interface ToolMessage {
  role: 'tool'
  tool_call_id: string
  content: string
}

export type ChatMessage = SystemMessage | UserMessage | AssistantMessage | ToolMessage

export interface Usage {
  input: number
  output: number
  cached: number
}

export const ZERO_USAGE: Usage = Object.freeze({ input: 0, output: 0, cached: 0 })

export function addUsage(a: Usage, b: Usage): Usage {
  return { input: a.input + b.input, output: a.output + b.output, cached: a.cached + b.cached }
}

/** OpenAI function-tool definition as sent in `tools`. */
export interface ToolDefinition {
  type: 'function'
  function: { name: string; description: string; parameters: Record<string, unknown> }
}

/** `tool_choice` forms we send. `allowed` is OpenAI's allowed_tools form (only where the profile supports it). */
export type ToolChoice = 'auto' | 'none' | { allowed: string[] }
