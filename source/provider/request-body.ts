import type {
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
  ChatCompletionToolChoiceOption,
} from 'openai/resources/chat/completions'
import type { ChatMessage, ToolChoice } from '../store/messages.js'
import type { ChatRequest, ModelInfo } from './types.js'

/**
 * Our history in the wire shape. Drops the display-only `reasoning` field (servers reject or misread it),
 * sends an empty string instead of a null content without tool calls, and omits empty `tool_calls`
 * arrays (several servers reject them).
 */
export function toWireMessages(messages: ChatMessage[]): ChatCompletionMessageParam[] {
  return messages.map((message): ChatCompletionMessageParam => {
    if (message.role !== 'assistant') return message
    const calls = message.tool_calls ?? []
    if (calls.length === 0) return { role: 'assistant', content: message.content ?? '' }
    return { role: 'assistant', content: message.content, tool_calls: calls }
  })
}

/** Our ToolChoice in the wire form; `allowed` becomes OpenAI's allowed_tools choice. */
export function toWireToolChoice(choice: ToolChoice): ChatCompletionToolChoiceOption {
  if (choice === 'auto' || choice === 'none') return choice
  return {
    type: 'allowed_tools',
    allowed_tools: {
      mode: 'auto',
      tools: choice.allowed.map((name) => ({ type: 'function', function: { name } })),
    },
  }
}

/** OpenAI's reasoning models (o-series, gpt-5) reject `max_tokens`; everyone else only knows it. */
function usesMaxCompletionTokens(model: string): boolean {
  const base = model.toLowerCase().split('/').at(-1) ?? ''
  return /^(o\d|gpt-5)/.test(base)
}

/** The streaming request body for one step. `tools`/`tool_choice` are omitted when no tools are defined. */
export function buildChatBody(req: ChatRequest): ChatCompletionCreateParamsStreaming {
  const body: ChatCompletionCreateParamsStreaming = {
    model: req.model,
    messages: toWireMessages(req.messages),
    stream: true,
    stream_options: { include_usage: true },
  }
  if (req.tools.length > 0) {
    body.tools = req.tools
    body.tool_choice = toWireToolChoice(req.toolChoice)
  }
  if (req.maxTokens !== undefined) {
    if (usesMaxCompletionTokens(req.model)) body.max_completion_tokens = req.maxTokens
    else body.max_tokens = req.maxTokens
  }
  return body
}

function positive(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined
}

/**
 * Models from a `/models` response. The context length comes from whichever field the server uses:
 * `context_length` (OpenRouter, LM Studio), `max_model_len` (vLLM), `meta.n_ctx_train` (llama.cpp),
 * `max_context_length`.
 */
export function parseModelList(body: unknown): ModelInfo[] {
  const record = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {}
  const data = Array.isArray(body) ? body : Array.isArray(record.data) ? record.data : []
  const models: ModelInfo[] = []
  for (const entry of data) {
    if (typeof entry !== 'object' || entry === null) continue
    const m = entry as Record<string, unknown>
    if (typeof m.id !== 'string' || m.id === '') continue
    const meta = typeof m.meta === 'object' && m.meta !== null ? (m.meta as Record<string, unknown>) : {}
    const contextLength =
      positive(m.context_length) ??
      positive(m.max_model_len) ??
      positive(meta.n_ctx_train) ??
      positive(m.max_context_length)
    models.push(contextLength === undefined ? { id: m.id } : { id: m.id, contextLength })
  }
  return models
}
