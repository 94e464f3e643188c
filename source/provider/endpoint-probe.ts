import { SseParser } from './sse-parser.js'
import {
  describeTextReply,
  detectTextToolCall,
  type ServerKind,
  serverLabel,
  type TextToolCall,
  toolCallFix,
  toolErrorFix,
} from './tool-support.js'

/**
 * Small requests that find out what an endpoint really does, sent the way a session sends its requests
 * (streaming, `stream_options.include_usage`, `tool_choice` "auto"), read whole, without the SDK: the
 * setup form's test and `agent-tui doctor` (docs/troubleshooting.md#doctor). Never throw.
 */

export interface ProbeTarget {
  baseUrl: string
  apiKey?: string | undefined
  /** The custom request headers configured for this endpoint's origin (config/headers.ts headersFor). */
  headers?: Record<string, string> | undefined
  model: string
}

export interface ProbeOptions {
  fetchImpl?: typeof fetch
  /** Per request (default 60 s: a local server may load the model first). */
  timeoutMs?: number
  signal?: AbortSignal
}

export interface WireCall {
  name: string
  arguments: string
}

export type ChatReply =
  | {
      ok: true
      ms: number
      /** Answered as a server-sent event stream (else one JSON completion). */
      streamed: boolean
      /** Token usage came with the reply. */
      usage: boolean
      text: string
      toolCalls: WireCall[]
    }
  | {
      ok: false
      ms: number
      /** `HTTP 401: invalid key`, `connection refused`, `no answer within 60 s`… */
      error: string
      status?: number
      /** The server's own words, when it sent any. */
      serverMessage?: string
    }

const DEFAULT_TIMEOUT_MS = 60_000
/** A probe's reply is a few hundred bytes: a server that sends more than this is not read to the end. */
const MAX_REPLY_BYTES = 2_000_000

/** The body as text, or null once it passes `max` bytes (the rest is not read). */
async function readCapped(response: Response, max: number): Promise<string | null> {
  if (!response.body) return ''
  const reader = response.body.getReader()
  const decoder = new TextDecoder()
  let text = ''
  let bytes = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return text + decoder.decode()
    bytes += value.byteLength
    if (bytes > max) {
      await reader.cancel().catch(() => undefined)
      return null
    }
    text += decoder.decode(value, { stream: true })
  }
}

/** The trivial tool of the tool-call probe. */
export const PROBE_TOOL = {
  type: 'function',
  function: {
    name: 'record_answer',
    description: 'Records the answer to the question.',
    parameters: {
      type: 'object',
      properties: { answer: { type: 'string', description: 'The answer' } },
      required: ['answer'],
    },
  },
} as const

/** One streamed chat request with `extra` in its body, read to the end. */
export async function sendChat(
  target: ProbeTarget,
  extra: Record<string, unknown>,
  opts: ProbeOptions = {},
): Promise<ChatReply> {
  const started = Date.now()
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS
  const timeout = AbortSignal.timeout(timeoutMs)
  const signal = opts.signal ? AbortSignal.any([timeout, opts.signal]) : timeout
  const headers: Record<string, string> = {
    ...target.headers,
    'content-type': 'application/json',
    accept: 'text/event-stream',
  }
  if (target.apiKey) headers.authorization = `Bearer ${target.apiKey}`
  const body = {
    model: target.model,
    stream: true,
    stream_options: { include_usage: true },
    ...extra,
  }
  const ms = () => Date.now() - started
  try {
    const response = await (opts.fetchImpl ?? fetch)(
      `${target.baseUrl.replace(/\/+$/, '')}/chat/completions`,
      {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
        signal,
        // Custom headers (a gateway's key) go to this origin only: a redirect is not followed with them.
        ...(target.headers ? { redirect: 'manual' as const } : {}),
      },
    )
    if (target.headers && response.status >= 300 && response.status < 400) {
      await response.body?.cancel().catch(() => undefined)
      const to = response.headers.get('location') ?? 'elsewhere'
      return {
        ok: false,
        ms: ms(),
        status: response.status,
        error: `HTTP ${response.status}: a redirect to ${to}, not followed with the request headers`,
      }
    }
    const raw = await readCapped(response, MAX_REPLY_BYTES)
    if (raw === null)
      return { ok: false, ms: ms(), error: `the reply was larger than ${MAX_REPLY_BYTES / 1_000_000} MB` }
    if (!response.ok) {
      const serverMessage = errorMessageOf(raw)
      return {
        ok: false,
        ms: ms(),
        status: response.status,
        error: `HTTP ${response.status}${serverMessage ? `: ${serverMessage}` : ''}`,
        ...(serverMessage ? { serverMessage } : {}),
      }
    }
    const type = response.headers.get('content-type') ?? ''
    const streamed = type.includes('text/event-stream') || /^\s*data:/.test(raw)
    const parsed = streamed ? readStream(raw) : readCompletion(raw)
    if ('error' in parsed) return { ok: false, ms: ms(), error: parsed.error }
    return { ok: true, ms: ms(), streamed, ...parsed }
  } catch (error) {
    if (opts.signal?.aborted) return { ok: false, ms: ms(), error: 'cancelled' }
    if (timeout.aborted)
      return { ok: false, ms: ms(), error: `no answer within ${Math.round(timeoutMs / 1000)} s` }
    return { ok: false, ms: ms(), error: describeFailure(error) }
  }
}

/** The setup form's test: one short request, as a session's first would go. */
export function testReply(target: ProbeTarget, opts: ProbeOptions = {}): Promise<ChatReply> {
  return sendChat(target, { messages: [{ role: 'user', content: 'Reply with the single word OK.' }] }, opts)
}

export type ToolProbe =
  /** A real `tool_calls` entry came back; `onlyForced`: only when the call was required. */
  | { kind: 'calls'; onlyForced: boolean; ms: number }
  /** Text instead: a written call (`call`), or prose. */
  | { kind: 'text'; call: TextToolCall | null; forced: boolean; text: string; fix: string; why: string }
  /** The server refused the request; `fix` when its words say why. */
  | { kind: 'refused'; error: string; fix: string | null }

const ASK = 'Call the record_answer tool with the answer "ok". Do not answer with text.'

/**
 * Whether the endpoint does tool calls: first with `tool_choice` "auto", as sessions send it; when that
 * gets prose (a model may choose not to call), again with the call required by name.
 */
export async function probeToolCalls(
  target: ProbeTarget,
  kind: ServerKind,
  opts: ProbeOptions = {},
): Promise<ToolProbe> {
  const ask = (toolChoice: unknown) =>
    sendChat(
      target,
      { messages: [{ role: 'user', content: ASK }], tools: [PROBE_TOOL], tool_choice: toolChoice },
      opts,
    )
  const names = [PROBE_TOOL.function.name]
  const auto = await ask('auto')
  if (!auto.ok) return refused(auto, kind, target.model)
  if (auto.toolCalls.some((c) => c.name !== '')) return { kind: 'calls', onlyForced: false, ms: auto.ms }
  const written = detectTextToolCall(auto.text, names)
  if (written) return textResult(written, false, auto.text, kind, target)
  const forced = await ask({ type: 'function', function: { name: PROBE_TOOL.function.name } })
  if (!forced.ok) {
    // Some servers know only "auto": the prose above is then all there is to go on.
    if (forced.status === 400 && /tool_choice/i.test(forced.error))
      return textResult(null, false, auto.text, kind, target)
    return refused(forced, kind, target.model)
  }
  if (forced.toolCalls.some((c) => c.name !== '')) return { kind: 'calls', onlyForced: true, ms: forced.ms }
  return textResult(detectTextToolCall(forced.text, names), true, forced.text, kind, target)
}

function refused(reply: Extract<ChatReply, { ok: false }>, kind: ServerKind, model: string): ToolProbe {
  return { kind: 'refused', error: reply.error, fix: toolErrorFix(reply.error, kind, model) }
}

function textResult(
  call: TextToolCall | null,
  forced: boolean,
  text: string,
  kind: ServerKind,
  target: ProbeTarget,
): ToolProbe {
  return {
    kind: 'text',
    call,
    forced,
    text,
    fix: toolCallFix(kind, target.model),
    why: `${serverLabel(kind, target.baseUrl)}: ${describeTextReply(call, forced)}`,
  }
}

type Parsed = { text: string; toolCalls: WireCall[]; usage: boolean } | { error: string }

function readStream(raw: string): Parsed {
  let text = ''
  let usage = false
  let error: string | undefined
  const calls = new Map<number, WireCall>()
  new SseParser(({ data }) => {
    if (data === '[DONE]' || error !== undefined) return
    let chunk: unknown
    try {
      chunk = JSON.parse(data)
    } catch {
      return
    }
    if (!isRecord(chunk)) return
    if (chunk.error !== undefined) {
      error = `the stream carried an error: ${errorMessageOf(JSON.stringify(chunk)) ?? 'unknown'}`
      return
    }
    if (isRecord(chunk.usage) && typeof chunk.usage.prompt_tokens === 'number') usage = true
    const choice = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined
    const delta = isRecord(choice) && isRecord(choice.delta) ? choice.delta : undefined
    if (!delta) return
    if (typeof delta.content === 'string') text += delta.content
    for (const [i, part] of (Array.isArray(delta.tool_calls) ? delta.tool_calls : []).entries()) {
      if (!isRecord(part)) continue
      const index = typeof part.index === 'number' ? part.index : i
      const call = calls.get(index) ?? { name: '', arguments: '' }
      const fn = isRecord(part.function) ? part.function : {}
      if (typeof fn.name === 'string' && !call.name.endsWith(fn.name)) call.name += fn.name
      if (typeof fn.arguments === 'string') call.arguments += fn.arguments
      calls.set(index, call)
    }
  }).feed(`${raw}\n\n`)
  if (error !== undefined) return { error }
  return { text, toolCalls: [...calls.values()], usage }
}

function readCompletion(raw: string): Parsed {
  let json: unknown
  try {
    json = JSON.parse(raw)
  } catch {
    return { error: 'answered, but neither with an event stream nor with JSON' }
  }
  if (!isRecord(json)) return { error: 'answered, but not with a chat completion' }
  const choice = Array.isArray(json.choices) ? json.choices[0] : undefined
  const message = isRecord(choice) && isRecord(choice.message) ? choice.message : undefined
  if (!message) return { error: 'answered, but not with a chat completion' }
  const toolCalls = (Array.isArray(message.tool_calls) ? message.tool_calls : []).flatMap((c) => {
    const fn = isRecord(c) && isRecord(c.function) ? c.function : undefined
    return fn && typeof fn.name === 'string'
      ? [{ name: fn.name, arguments: typeof fn.arguments === 'string' ? fn.arguments : '' }]
      : []
  })
  const usage = isRecord(json.usage) && typeof json.usage.prompt_tokens === 'number'
  return { text: typeof message.content === 'string' ? message.content : '', toolCalls, usage }
}

/** `{error: {message}}`, `{error: "…"}`, `{message}`, or a short plain-text body. */
function errorMessageOf(raw: string): string | undefined {
  try {
    const json: unknown = JSON.parse(raw)
    if (isRecord(json)) {
      const error = json.error
      if (typeof error === 'string') return clip(error)
      if (isRecord(error) && typeof error.message === 'string') return clip(error.message)
      if (typeof json.message === 'string') return clip(json.message)
      if (typeof json.detail === 'string') return clip(json.detail)
    }
  } catch {
    // Not JSON: the body itself, when it is short text.
  }
  const text = raw.trim()
  return text !== '' && text.length <= 300 && !text.startsWith('<') ? text : undefined
}

function clip(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim()
  return line.length > 300 ? `${line.slice(0, 299)}…` : line
}

/** `connection refused`, `host not found`, `connection reset`, or the error's own words. */
export function describeFailure(error: unknown): string {
  let current: unknown = error
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code
    if (code === 'ECONNREFUSED') return 'connection refused'
    if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE') return 'connection reset'
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host not found'
    if (
      code === 'CERT_HAS_EXPIRED' ||
      code === 'DEPTH_ZERO_SELF_SIGNED_CERT' ||
      code === 'SELF_SIGNED_CERT_IN_CHAIN'
    )
      return `TLS: ${String(code)} (NODE_EXTRA_CA_CERTS names extra CA certificates)`
    current = current.cause
  }
  return error instanceof Error ? error.message : String(error)
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
