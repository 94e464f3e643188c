/**
 * The figures in a context-overflow error, as each server words it. The wordings (recognised as
 * overflows by provider/errors.ts) are quoted in test/unit/agent/context/overflow.test.ts.
 */
export interface OverflowFigures {
  /** The window the server says it has. */
  limit?: number
  /** The prompt size the server counted. */
  requested?: number
}

const num = (text: string | undefined) => (text === undefined ? undefined : Number.parseInt(text, 10))

const PATTERNS: Array<{ re: RegExp; limit?: number; requested?: number }> = [
  // llama.cpp (and Ollama's llama-server path): "request (41533 tokens) exceeds the available context size (32768 tokens)"
  {
    re: /request \((\d+) tokens\) exceeds the available context size \((\d+) tokens\)/,
    requested: 1,
    limit: 2,
  },
  // LM Studio: "Trying to keep the first 10136 tokens … context length of only 7866 tokens"
  { re: /keep the first (\d+) tokens[\s\S]*?context length of only (\d+) tokens/, requested: 1, limit: 2 },
  // LM Studio 0.4: "Cannot truncate prompt with n_keep (15028) >= n_ctx (7424)"
  { re: /n_keep \((\d+)\) >= n_ctx \((\d+)\)/, requested: 1, limit: 2 },
  // Claude through a proxy: "prompt is too long: 215000 tokens > 200000 maximum"
  { re: /prompt is too long: (\d+) tokens > (\d+)/, requested: 1, limit: 2 },
  // OpenAI and vLLM: "This model's maximum context length is 4096 tokens. However, …"
  { re: /maximum context length is (\d+)/, limit: 1 },
  // OpenAI "your messages resulted in N tokens"; vLLM "your request has N input tokens" / "you requested N tokens" / "your prompt contains N input tokens"
  { re: /(?:resulted in|request has|you requested|prompt contains) (\d+)(?: input)? tokens/, requested: 1 },
  // llama.cpp's error object fields, when the body is shown whole
  { re: /"?n_ctx"?\s*[:=]\s*(\d+)/, limit: 1 },
  { re: /"?n_prompt_tokens"?\s*[:=]\s*(\d+)/, requested: 1 },
]

export function overflowFigures(message: string): OverflowFigures {
  const text = message.toLowerCase()
  const out: OverflowFigures = {}
  for (const { re, limit, requested } of PATTERNS) {
    const m = re.exec(text)
    if (!m) continue
    if (limit !== undefined && out.limit === undefined) out.limit = num(m[limit])
    if (requested !== undefined && out.requested === undefined) out.requested = num(m[requested])
  }
  return out
}
