import { randomBytes } from 'node:crypto'
import type { ToolCall, Usage } from '../store/messages.js'
import { inStreamError } from './errors.js'
import { type Recovery, recoverTextToolCalls, TextCallHold, type TextToolIndex } from './text-tool-calls.js'
import type { FinishReason, StepResponse, StreamHandlers, TextToolCallsReport } from './types.js'

/** The delta callbacks the assembler drives (a subset of StreamHandlers). */
export type AssemblerHandlers = Pick<StreamHandlers, 'onText' | 'onReasoning' | 'onToolCallStart'>

export interface StreamAssemblerOptions {
  /** Endpoint base URL, for errors raised by in-stream error objects. */
  url: string
  handlers?: AssemblerHandlers
  /** Id for a tool call whose id never arrived (or duplicates another call's); default `call_<random>_<n>`. */
  newId?: (n: number) => string
  /** Recover tool calls written as text, for these tools (text-tool-calls.ts); absent: text is text. */
  textTools?: TextToolIndex
}

interface PendingCall {
  /** Wire index the call was announced under (reported to onToolCallStart). */
  index: number
  id: string
  name: string
  args: string
  announced: boolean
}

type Json = Record<string, unknown>

function asRecord(value: unknown): Json | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : null
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : ''
}

function num(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0
}

const FINISH_REASONS: Record<string, FinishReason> = {
  stop: 'stop',
  end_turn: 'stop',
  eos: 'stop',
  tool_calls: 'tool_calls',
  function_call: 'tool_calls',
  tool_use: 'tool_calls',
  length: 'length',
  max_tokens: 'length',
  content_filter: 'content_filter',
}

function defaultIdFactory(): (n: number) => string {
  // Random per step: a counter alone would repeat ids across steps and break the pairing rule.
  const salt = randomBytes(4).toString('hex')
  return (n) => `call_${salt}_${n}`
}

/**
 * Turns chat.completion.chunk objects (as parsed JSON, from any OpenAI-compatible server) into text and
 * reasoning deltas and complete tool calls. Tolerates the usual server quirks: tool-call ids or names that
 * arrive late, whole, or repeated on every fragment; reasoning in `reasoning_content` or `reasoning`;
 * usage on the last chunk or on every chunk. Synchronous; the only side effects are the handler calls.
 */
export class StreamAssembler {
  readonly #url: string
  readonly #handlers: AssemblerHandlers
  readonly #newId: (n: number) => string
  readonly #calls: PendingCall[] = []
  /** Wire index → position in #calls of the call currently receiving fragments for that index. */
  readonly #byIndex = new Map<number, number>()
  #text = ''
  #reasoning = ''
  #finish: FinishReason | null = null
  #usage: Usage | null = null
  #delivered = false
  readonly #textTools: TextToolIndex | undefined
  /** Holds streamed text back from possible tool-call markup on (only with textTools). */
  readonly #hold: TextCallHold | null
  /** What the text turned out to hold, decided once at the end. */
  #recovered: { recovery: Recovery | null } | undefined

  constructor(opts: StreamAssemblerOptions) {
    this.#url = opts.url
    this.#handlers = opts.handlers ?? {}
    this.#newId = opts.newId ?? defaultIdFactory()
    this.#textTools = opts.textTools
    this.#hold = opts.textTools ? new TextCallHold(opts.textTools.bareJson) : null
  }

  /** True once any text, reasoning or tool call reached the handlers (a retry would duplicate output). */
  get delivered(): boolean {
    return this.#delivered || this.#calls.length > 0
  }

  /** True once a finish_reason arrived. */
  get finished(): boolean {
    return this.#finish !== null
  }

  /**
   * Feeds one parsed chunk. Throws ProviderError for an error object inside the stream (kind from its
   * code and message); ignores chunks it cannot interpret.
   */
  push(chunk: unknown): void {
    const data = asRecord(chunk)
    if (data === null) return
    const error = data.error
    if (error !== undefined && error !== null) throw inStreamError(error, this.#url)
    const usage = asRecord(data.usage)
    if (usage !== null) this.#usage = readUsage(usage)
    const choices = Array.isArray(data.choices) ? data.choices : []
    // Only the first choice matters: we never ask for n > 1.
    const choice = asRecord(choices.find((c) => num(asRecord(c)?.index) === 0) ?? choices[0])
    if (choice === null) return
    const delta = asRecord(choice.delta) ?? asRecord(choice.message)
    if (delta !== null) this.#pushDelta(delta)
    const finish = choice.finish_reason
    if (typeof finish === 'string' && finish !== '') this.#finish = FINISH_REASONS[finish] ?? 'unknown'
  }

  #pushDelta(delta: Json): void {
    // Some servers send both fields with the same text; prefer reasoning_content and never count twice.
    const reasoning = str(delta.reasoning_content) || str(delta.reasoning)
    if (reasoning !== '') {
      this.#reasoning += reasoning
      this.#delivered = true
      this.#handlers.onReasoning?.(reasoning)
    }
    const text = str(delta.content)
    if (text !== '') {
      this.#text += text
      this.#delivered = true
      const shown = this.#hold ? this.#hold.push(text) : text
      if (shown !== '') this.#handlers.onText?.(shown)
    }
    if (Array.isArray(delta.tool_calls)) {
      for (const fragment of delta.tool_calls) {
        const f = asRecord(fragment)
        if (f !== null) this.#pushToolFragment(f)
      }
    }
  }

  #pushToolFragment(f: Json): void {
    const fn = asRecord(f.function) ?? {}
    const id = str(f.id)
    const name = str(fn.name)
    const rawArgs = fn.arguments
    const args = typeof rawArgs === 'string' ? rawArgs : asRecord(rawArgs) ? JSON.stringify(rawArgs) : ''
    const index = typeof f.index === 'number' ? f.index : this.#implicitIndex(id)
    let pos = this.#byIndex.get(index)
    let call = pos === undefined ? undefined : this.#calls[pos]
    // A different id under a known index is a new call: some servers send every call with index 0.
    if (call === undefined || (id !== '' && call.id !== '' && id !== call.id)) {
      call = { index, id: '', name: '', args: '', announced: false }
      pos = this.#calls.push(call) - 1
      this.#byIndex.set(index, pos)
    }
    if (id !== '' && call.id === '') call.id = id
    // A repeated name is the same name again, not a piece to append.
    if (name !== '' && name !== call.name) call.name += name
    call.args += args
    if (!call.announced && call.id !== '' && call.name !== '') {
      call.announced = true
      this.#handlers.onToolCallStart?.({ index: call.index, id: call.id, name: call.name })
    }
  }

  /** Index for servers that omit it: continue the last call unless a new id starts another. */
  #implicitIndex(id: string): number {
    const last = this.#calls.at(-1)
    if (last === undefined) return 0
    return id !== '' && last.id !== '' && id !== last.id ? last.index + 1 : last.index
  }

  /**
   * The step so far. Calls without an id get a generated one (and are announced now if they never were);
   * a stream that ended without a finish reason reports 'unknown', an aborted one 'aborted'.
   */
  result(opts: { aborted?: boolean } = {}): StepResponse {
    const recovery = this.#settleText(opts.aborted === true)
    if (recovery?.kind === 'calls' && this.#calls.length === 0) return this.#recoveredResult(recovery)
    const seen = new Set<string>()
    const toolCalls: ToolCall[] = []
    for (const [n, call] of this.#calls.entries()) {
      if (call.id === '' || seen.has(call.id)) call.id = this.#newId(n)
      seen.add(call.id)
      if (!call.announced && !opts.aborted && call.name !== '') {
        call.announced = true
        this.#handlers.onToolCallStart?.({ index: call.index, id: call.id, name: call.name })
      }
      toolCalls.push({ id: call.id, type: 'function', function: { name: call.name, arguments: call.args } })
    }
    let finishReason: FinishReason = opts.aborted ? 'aborted' : (this.#finish ?? 'unknown')
    // Several servers (llama.cpp, Ollama) say 'stop' even when the message carries tool calls.
    if (finishReason === 'stop' && toolCalls.length > 0) finishReason = 'tool_calls'
    const report = reportOf(recovery)
    return {
      text: this.#text,
      reasoning: this.#reasoning,
      toolCalls,
      finishReason,
      usage: this.#usage,
      aborted: opts.aborted === true,
      ...(report ? { textToolCalls: report } : {}),
    }
  }

  /**
   * Ends the hold once: a reply with real tool calls, or an aborted one, is taken as it came; otherwise
   * held markup is read as calls (and never shown) or let go as the text it is.
   */
  #settleText(aborted: boolean): Recovery | null {
    if (this.#hold === null || this.#textTools === undefined) return null
    if (this.#recovered) return this.#recovered.recovery
    const { released, held, shown, candidate } = this.#hold.finish()
    if (released !== '') this.#handlers.onText?.(released)
    const recovery =
      !aborted && candidate && this.#calls.length === 0
        ? recoverTextToolCalls(this.#text, this.#textTools)
        : null
    this.#recovered = { recovery }
    if (recovery?.kind === 'calls') {
      const before = shown + released
      if (recovery.text.length > before.length && recovery.text.startsWith(before))
        this.#handlers.onText?.(recovery.text.slice(before.length))
      if (recovery.reasoning !== '') this.#handlers.onReasoning?.(recovery.reasoning)
    } else if (held !== '') this.#handlers.onText?.(held)
    return recovery
  }

  #recoveredResult(recovery: Extract<Recovery, { kind: 'calls' }>): StepResponse {
    const toolCalls = recovery.calls.map((call, n): ToolCall => {
      const id = this.#newId(n)
      this.#handlers.onToolCallStart?.({ index: n, id, name: call.name })
      return { id, type: 'function', function: { name: call.name, arguments: call.arguments } }
    })
    const finish = this.#finish ?? 'unknown'
    return {
      text: recovery.text,
      reasoning: this.#reasoning + recovery.reasoning,
      toolCalls,
      finishReason: finish === 'stop' ? 'tool_calls' : finish,
      usage: this.#usage,
      aborted: false,
      textToolCalls: reportOf(recovery) as TextToolCallsReport,
    }
  }
}

function reportOf(recovery: Recovery | null): TextToolCallsReport | null {
  if (recovery === null) return null
  if (recovery.kind === 'calls')
    return { outcome: 'recovered', format: recovery.format, calls: recovery.calls.length }
  if (recovery.kind === 'unknown' || recovery.kind === 'quoted')
    return { outcome: recovery.kind, format: recovery.format, names: recovery.names }
  return { outcome: 'unreadable', format: recovery.format, why: recovery.why }
}

function readUsage(usage: Json): Usage {
  const details = asRecord(usage.prompt_tokens_details)
  // DeepSeek reports cache hits as prompt_cache_hit_tokens instead of prompt_tokens_details.
  const cached = details !== null ? num(details.cached_tokens) : num(usage.prompt_cache_hit_tokens)
  return { input: num(usage.prompt_tokens), output: num(usage.completion_tokens), cached }
}
