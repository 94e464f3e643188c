/**
 * Turns a ScriptedCompletion into the wire objects an OpenAI-compatible server would send: the list of
 * `chat.completion.chunk` objects of a stream, or one `chat.completion` object. Pure functions.
 */
import type { ScriptedCompletion, ScriptedToolCall, ScriptedUsage } from './scripted-types.ts'

export interface ChunkContext {
  /** Response id (`chatcmpl-…`), shared by all chunks of one response. */
  id: string
  model: string
  /** Characters of the request, for the default usage estimate. */
  requestChars: number
  /** The server's own prompt count (a `contextWindow` server): reported instead of the estimate. */
  promptTokens?: number
  includeUsage: boolean
  /** Prefix for invented tool-call ids, unique per request. */
  callIdPrefix: string
}

interface WireCall {
  id: string | undefined
  name: string
  arguments: string
}

function pieces(text: string, size: number): string[] {
  const out: string[] = []
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size))
  return out
}

function wireCalls(calls: ScriptedToolCall[], prefix: string): WireCall[] {
  return calls.map((call, i) => ({
    id: call.id === undefined ? `${prefix}_${i}` : call.id === '' ? undefined : call.id,
    name: call.name,
    arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
  }))
}

function finishReasonOf(reply: ScriptedCompletion): string | null {
  if (reply.finishReason !== undefined) return reply.finishReason
  return (reply.toolCalls?.length ?? 0) > 0 ? 'tool_calls' : 'stop'
}

function usageOf(reply: ScriptedCompletion, ctx: ChunkContext): Record<string, unknown> {
  const outChars =
    (reply.text?.length ?? 0) +
    (reply.reasoning?.length ?? 0) +
    wireCalls(reply.toolCalls ?? [], 'x').reduce((n, c) => n + c.name.length + c.arguments.length, 0)
  const usage: ScriptedUsage = reply.usage ?? {
    prompt: ctx.promptTokens ?? Math.ceil(ctx.requestChars / 4),
    completion: Math.ceil(outChars / 4),
  }
  return {
    prompt_tokens: usage.prompt,
    completion_tokens: usage.completion,
    total_tokens: usage.prompt + usage.completion,
    prompt_tokens_details: { cached_tokens: usage.cached ?? 0 },
  }
}

/** One tool-call fragment as it appears in `delta.tool_calls[]`. */
function fragment(
  index: number,
  call: WireCall,
  parts: { id?: boolean; name?: boolean; args?: string },
): Record<string, unknown> {
  const out: Record<string, unknown> = { index }
  const fn: Record<string, unknown> = {}
  if (parts.id === true && call.id !== undefined) {
    out.id = call.id
    out.type = 'function'
  }
  if (parts.name === true) fn.name = call.name
  if (parts.args !== undefined) fn.arguments = parts.args
  out.function = fn
  return out
}

/** Lists of `delta.tool_calls` arrays, one per chunk, in the requested fragmentation style. */
function toolCallDeltas(calls: WireCall[], mode: ScriptedCompletion['fragments'], size: number): unknown[][] {
  if (calls.length === 0) return []
  if (mode === 'whole') {
    return [calls.map((call, i) => fragment(i, call, { id: true, name: true, args: call.arguments }))]
  }
  const deltas: unknown[][] = []
  for (const [i, call] of calls.entries()) {
    const args = pieces(call.arguments, size)
    if (mode === 'late-ids') {
      // The first argument piece travels alone; id and name follow with the second piece.
      const [first, ...rest] = args
      if (first !== undefined) deltas.push([fragment(i, call, { args: first })])
      deltas.push([fragment(i, call, { id: true, name: true, args: rest.shift() ?? '' })])
      for (const piece of rest) deltas.push([fragment(i, call, { args: piece })])
    } else if (mode === 'repeated-ids') {
      if (args.length === 0) deltas.push([fragment(i, call, { id: true, name: true, args: '' })])
      for (const piece of args) deltas.push([fragment(i, call, { id: true, name: true, args: piece })])
    } else {
      deltas.push([fragment(i, call, { id: true, name: true, args: '' })])
      for (const piece of args) deltas.push([fragment(i, call, { args: piece })])
    }
  }
  return deltas
}

/** The chunk objects of one streamed response, in order, including the usage chunk when requested. */
export function buildStreamChunks(reply: ScriptedCompletion, ctx: ChunkContext): Record<string, unknown>[] {
  const size = Math.max(1, reply.chunkSize ?? 8)
  const base = { id: ctx.id, object: 'chat.completion.chunk', created: 1_700_000_000, model: ctx.model }
  const withUsage = ctx.includeUsage && reply.omitUsage !== true
  const extra = withUsage ? { usage: null } : {}
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
    ...base,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...extra,
  })
  const chunks: Record<string, unknown>[] = [chunk({ role: 'assistant', content: '' })]
  for (const piece of pieces(reply.reasoning ?? '', size)) chunks.push(chunk({ reasoning_content: piece }))
  for (const piece of pieces(reply.text ?? '', size)) chunks.push(chunk({ content: piece }))
  const calls = wireCalls(reply.toolCalls ?? [], ctx.callIdPrefix)
  for (const delta of toolCallDeltas(calls, reply.fragments, size)) chunks.push(chunk({ tool_calls: delta }))
  const finish = finishReasonOf(reply)
  if (finish !== null) chunks.push(chunk({}, finish))
  if (withUsage) chunks.push({ ...base, choices: [], usage: usageOf(reply, ctx) })
  return chunks
}

/** The `chat.completion` object answering a non-streaming request. */
export function buildCompletion(reply: ScriptedCompletion, ctx: ChunkContext): Record<string, unknown> {
  const calls = wireCalls(reply.toolCalls ?? [], ctx.callIdPrefix)
  const message: Record<string, unknown> = { role: 'assistant', content: reply.text ?? null }
  if (reply.reasoning !== undefined) message.reasoning_content = reply.reasoning
  if (calls.length > 0) {
    message.tool_calls = calls.map((call) => ({
      ...(call.id === undefined ? {} : { id: call.id }),
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    }))
  }
  return {
    id: ctx.id,
    object: 'chat.completion',
    created: 1_700_000_000,
    model: ctx.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReasonOf(reply) }],
    ...(reply.omitUsage === true ? {} : { usage: usageOf(reply, ctx) }),
  }
}
