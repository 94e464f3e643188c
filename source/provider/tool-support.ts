/**
 * Whether an endpoint really does tool calls, told from what it answered (docs/troubleshooting.md#the-model-writes-tool-calls-as-text):
 * many OpenAI-compatible servers accept `tools` and ignore them (llama.cpp without `--jinja`, a model whose
 * Ollama template has no tools, older LM Studio), so the model writes the call as text, or answers in
 * prose. One detector and one set of hints, shared by `agent-tui doctor` and the first-turn notice.
 *
 * This only *recognises* a call written as text; it never runs one. Recovering such calls for local
 * model families is the provider's job (the text tool-call parser); what reaches this detector is what
 * that did not recover.
 */

export type TextCallFormat =
  | 'hermes'
  | 'qwen-xml'
  | 'llama'
  | 'mistral'
  | 'deepseek'
  | 'harmony'
  | 'xml-invoke'
  | 'json'

export interface TextToolCall {
  format: TextCallFormat
  /** The tool it names, when that could be read. */
  tool?: string
}

/** Markup of the chat templates that carry tool calls, as a model writes it when the server does not parse it. */
const MARKERS: ReadonlyArray<{ format: TextCallFormat; re: RegExp; name?: RegExp }> = [
  { format: 'hermes', re: /<tool_call>/, name: /<tool_call>\s*\{\s*"name"\s*:\s*"([^"]+)"/ },
  { format: 'qwen-xml', re: /<function=[\w.-]+>/, name: /<function=([\w.-]+)>/ },
  { format: 'llama', re: /<\|python_tag\|>/, name: /<\|python_tag\|>\s*\{\s*"name"\s*:\s*"([^"]+)"/ },
  {
    format: 'mistral',
    re: /\[TOOL_CALLS\]/,
    name: /\[TOOL_CALLS\]\s*(?:\[\s*\{\s*"name"\s*:\s*"([^"]+)"|([\w.-]+)\[ARGS\])/,
  },
  {
    format: 'deepseek',
    re: /<[|\uFF5C]tool[\u2581_]calls?[\u2581_]begin[|\uFF5C]>/,
    name: /<[|\uFF5C]tool[\u2581_]sep[|\uFF5C]>\s*([\w.-]+)/,
  },
  { format: 'harmony', re: /to=functions\.[\w.-]+/, name: /to=functions\.([\w.-]+)/ },
  { format: 'xml-invoke', re: /<invoke name="[^"]+"/, name: /<invoke name="([^"]+)"/ },
]

/**
 * The tool call `text` holds in a known written form, or null. Markup counts outside code fences only (a
 * reply explaining the format is prose); a bare JSON call must be the whole reply (or its one fence) and
 * name one of `toolNames`.
 */
export function detectTextToolCall(text: string, toolNames: readonly string[]): TextToolCall | null {
  const unfenced = text.replace(/```[\s\S]*?(```|$)/g, ' ')
  for (const marker of MARKERS) {
    if (!marker.re.test(unfenced)) continue
    const match = marker.name?.exec(unfenced)
    const tool = match?.slice(1).find((g) => g !== undefined)
    return tool ? { format: marker.format, tool } : { format: marker.format }
  }
  const json = wholeJson(text)
  if (json === undefined) return null
  for (const item of Array.isArray(json) ? json : [json]) {
    const call = jsonCall(item)
    if (call && toolNames.includes(call)) return { format: 'json', tool: call }
  }
  return null
}

/** The reply's JSON when the reply is nothing else (or one fenced block of it). */
function wholeJson(text: string): unknown {
  const trimmed = text.trim()
  const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/.exec(trimmed)
  const body = (fenced ? fenced[1] : trimmed)?.trim() ?? ''
  if (!body.startsWith('{') && !body.startsWith('[')) return undefined
  try {
    return JSON.parse(body)
  } catch {
    return undefined
  }
}

/** `{"name": T, "arguments"|"parameters": {…}}` or `{"function": {"name": T, …}}` → T. */
function jsonCall(item: unknown): string | undefined {
  if (!isRecord(item)) return undefined
  const fn = isRecord(item.function) ? item.function : item
  const name = fn.name
  const args = fn.arguments ?? fn.parameters
  if (typeof name !== 'string') return undefined
  return isRecord(args) || typeof args === 'string' ? name : undefined
}

export type ServerKind = 'llama.cpp' | 'ollama' | 'lm-studio' | 'vllm' | 'openai' | 'openrouter' | 'unknown'

/** Which server answers at `baseUrl`: its listing's `owned_by` when it says, else the usual ports and hosts. */
export function serverKindOf(baseUrl: string, ownedBy?: string): ServerKind {
  const owner = ownedBy?.toLowerCase()
  if (owner === 'llamacpp') return 'llama.cpp'
  if (owner === 'vllm') return 'vllm'
  if (owner === 'organization_owner') return 'lm-studio'
  let url: URL
  try {
    url = new URL(baseUrl)
  } catch {
    return 'unknown'
  }
  if (url.hostname === 'api.openai.com') return 'openai'
  if (url.hostname === 'openrouter.ai') return 'openrouter'
  const port = url.port
  if (owner === 'library' || port === '11434') return 'ollama'
  if (port === '1234') return 'lm-studio'
  if (port === '8080') return 'llama.cpp'
  if (port === '8000') return 'vllm'
  return 'unknown'
}

/** What to change on the server so its replies carry real `tool_calls`. */
export function toolCallFix(kind: ServerKind, model: string): string {
  switch (kind) {
    case 'llama.cpp':
      return 'start llama-server with --jinja (the default only in builds since late 2025), with a model whose chat template supports tools (--chat-template-file when the GGUF has none)'
    case 'ollama':
      return `pick a model whose Ollama template supports tools: \`ollama show ${model}\` lists "tools" under Capabilities (qwen2.5-coder, llama3.1 and qwen3 have it), or update Ollama`
    case 'lm-studio':
      return 'update LM Studio (tool calls over its API need 0.3.6 or later) and load a model with native tool use (the hammer badge)'
    case 'vllm':
      return 'start vLLM with --enable-auto-tool-choice --tool-call-parser PARSER (hermes for Qwen, llama3_json for Llama 3.x, mistral for Mistral)'
    case 'openai':
    case 'openrouter':
      return `pick a model that supports tools (${model} answered without calling the tool)`
    default:
      return "turn on the server's tool-call parsing for this model, or pick a model made for tool use"
  }
}

/** Names the server for messages: "llama.cpp at http://…", "the server at http://…". */
export function serverLabel(kind: ServerKind, baseUrl: string): string {
  const names: Record<ServerKind, string> = {
    'llama.cpp': 'llama.cpp',
    ollama: 'Ollama',
    'lm-studio': 'LM Studio',
    vllm: 'vLLM',
    openai: 'OpenAI',
    openrouter: 'OpenRouter',
    unknown: 'the server',
  }
  return `${names[kind]} at ${baseUrl}`
}

/** Why the reply is not a tool call, in one sentence; the fix follows it in the caller's message. */
export function describeTextReply(call: TextToolCall | null, forced: boolean): string {
  if (call) {
    const what = call.tool ? `a ${call.tool} call` : 'a tool call'
    return `the model wrote ${what} as text (${FORMAT_NAMES[call.format]}) instead of a tool call, so nothing ran`
  }
  return forced
    ? 'the reply was prose although a tool call was required: the server ignores `tools`'
    : 'the reply was prose, not a tool call'
}

const FORMAT_NAMES: Record<TextCallFormat, string> = {
  hermes: '<tool_call> markup',
  'qwen-xml': '<function=…> markup',
  llama: '<|python_tag|> markup',
  mistral: '[TOOL_CALLS] markup',
  deepseek: 'DeepSeek tool-call markup',
  harmony: 'Harmony to=functions markup',
  'xml-invoke': '<invoke> markup',
  json: 'a JSON object',
}

/**
 * The hint for an HTTP error a tool-bearing request got, when the server's words say it cannot do tools
 * (`tools param requires --jinja flag`, `… does not support tools`, `"auto" tool choice requires
 * --enable-auto-tool-choice`); null for other errors.
 */
export function toolErrorFix(message: string, kind: ServerKind, model: string): string | null {
  if (/--jinja/i.test(message)) return toolCallFix('llama.cpp', model)
  if (/does not support tools/i.test(message)) return toolCallFix(kind === 'unknown' ? 'ollama' : kind, model)
  if (/enable-auto-tool-choice|tool-call-parser/i.test(message)) return toolCallFix('vllm', model)
  if (/\btools?\b|tool_choice/i.test(message)) return toolCallFix(kind, model)
  return null
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
