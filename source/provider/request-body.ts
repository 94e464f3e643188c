import type {
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
  ChatCompletionToolChoiceOption,
} from 'openai/resources/chat/completions'
import type { ChatMessage, ToolCall, ToolChoice, UserMessage } from '../store/messages.js'
import type { ChatRequest, ModelInfo } from './types.js'

/**
 * Our history in the wire shape. Drops the display-only `reasoning` field (servers reject or misread it),
 * sends an empty string instead of a null content without tool calls, and omits empty `tool_calls`
 * arrays (several servers reject them). Every text is well-formed Unicode: a lone surrogate (a model's
 * `\ud800` escape, an MCP server's result) becomes U+FFFD, since strict JSON parsers (serde_json) refuse
 * the request otherwise. NUL and other controls stay: they are valid JSON and valid UTF-8.
 */
export function toWireMessages(messages: ChatMessage[]): ChatCompletionMessageParam[] {
  return messages.map(toWireMessage)
}

function toWireMessage(message: ChatMessage): ChatCompletionMessageParam {
  if (message.role === 'system') return { role: 'system', content: wellFormed(message.content) }
  if (message.role === 'user') return { role: 'user', content: wellFormedContent(message.content) }
  if (message.role === 'tool') {
    return {
      role: 'tool',
      tool_call_id: wellFormed(message.tool_call_id),
      content: wellFormed(message.content),
    }
  }
  const calls = message.tool_calls ?? []
  const content = message.content === null ? null : wellFormed(message.content)
  if (calls.length === 0) return { role: 'assistant', content: content ?? '' }
  return { role: 'assistant', content, tool_calls: wellFormedCalls(calls) }
}

function wellFormed(text: string): string {
  return text.isWellFormed() ? text : text.toWellFormed()
}

/** Ids and names as the model sent them (the arguments are already the JSON of what ran). */
function wellFormedCalls(calls: ToolCall[]): ToolCall[] {
  const ok = (c: ToolCall) =>
    c.id.isWellFormed() && c.function.name.isWellFormed() && c.function.arguments.isWellFormed()
  if (calls.every(ok)) return calls
  return calls.map((c) =>
    ok(c)
      ? c
      : {
          ...c,
          id: c.id.toWellFormed(),
          function: { name: c.function.name.toWellFormed(), arguments: c.function.arguments.toWellFormed() },
        },
  )
}

function wellFormedContent(content: UserMessage['content']): UserMessage['content'] {
  if (typeof content === 'string') return wellFormed(content)
  return content.every((part) => part.type !== 'text' || part.text.isWellFormed())
    ? content
    : content.map((part) => (part.type === 'text' ? { ...part, text: part.text.toWellFormed() } : part))
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
