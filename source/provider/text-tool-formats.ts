import { DS, jsonEnd } from './text-tool-markup.js'

/**
 * One parser per tool-call format local models write as text, each read from the model's own chat
 * template (docs/context.md#text-tool-call-formats): it reads the calls that start at a marker and says
 * where the markup ends. Nothing here decides whether the markup is a call at all (text-tool-calls.ts
 * does, from what follows it and which tools exist).
 */

export interface RawCall {
  name: string
  /** The arguments as written (the pipeline parses them; broken JSON becomes a validation envelope). */
  arguments: string
}

export type Parsed =
  | {
      calls: RawCall[]
      /** End (exclusive) of the markup. */
      end: number
      /** The reply's own text, when it is not just the text before the markup (Harmony's channels). */
      text?: string
      reasoning?: string
    }
  | { unreadable: string; end: number }

export interface FormatContext {
  known(name: string): boolean
  /** The JSON Schema `properties` of a tool's parameters: Qwen3-Coder writes every value as text. */
  properties(name: string): Record<string, unknown> | undefined
}

export type Parser = (text: string, at: number, ctx: FormatContext) => Parsed | null

type Json = Record<string, unknown>

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function skipWs(text: string, i: number): number {
  while (i < text.length && /\s/.test(text[i] as string)) i++
  return i
}

/** Trailing commas before `}` or `]`, outside strings: the one defect of a call's wrapper we repair. */
function withoutTrailingCommas(text: string): string {
  let out = ''
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string
    if (inString) {
      out += ch
      if (ch === '\\') out += text[++i] ?? ''
      else if (ch === '"') inString = false
      continue
    }
    if (ch === '"') inString = true
    if (ch === ',' && /^\s*[}\]]/.test(text.slice(i + 1, i + 64))) continue
    out += ch
  }
  return out
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  for (const candidate of [text, withoutTrailingCommas(text)]) {
    try {
      return { ok: true, value: JSON.parse(candidate) }
    } catch {}
  }
  return { ok: false }
}

/** Arguments given as an object are written back as JSON; a string is what the model double-encoded. */
function argumentsOf(value: unknown): string {
  if (value === undefined || value === null) return '{}'
  return typeof value === 'string' ? value : JSON.stringify(value)
}

/** `{"name", "arguments"}` (Hermes, Mistral), `{"name", "parameters"}` (Llama), `{"function": {…}}`. */
function callOf(value: unknown): RawCall | null {
  if (!isRecord(value)) return null
  const inner = isRecord(value.function) ? value.function : value
  if (typeof inner.name !== 'string' || inner.name === '') return null
  return { name: inner.name, arguments: argumentsOf(inner.arguments ?? inner.parameters) }
}

/** The tool a broken wrapper names, so the model hears what was wrong with its call. */
function guessedName(raw: string): string | null {
  return /"name"\s*:\s*"([^"\\\n]{1,128})"/.exec(raw)?.[1] ?? null
}

/** A wrapper that does not parse: a call with its raw text (refused with the parse error), if it names a tool. */
function malformed(raw: string, end: number, what: string): Parsed {
  const name = guessedName(raw)
  return name ? { calls: [{ name, arguments: raw }], end } : { unreadable: `${what} is not valid JSON`, end }
}

function unfenced(body: string): string {
  return /^```(?:json)?\s*\n?([\s\S]*?)\n?\s*```$/.exec(body)?.[1]?.trim() ?? body
}

/**
 * One JSON wrapper at `start` (a `{` or `[`): the calls in it, or a malformed call. `close` is where its
 * enclosing tag ends (-1: no tag, the JSON's own end is the end).
 */
function jsonCalls(text: string, start: number, close: number, what: string): Parsed | null {
  const end = jsonEnd(text, start)
  const stop = close === -1 ? (end === -1 ? text.length : end) : close
  if (end === -1 || (close !== -1 && text.slice(end, close).trim() !== ''))
    return malformed(text.slice(start, stop).trim(), stop, what)
  const parsed = parseJson(text.slice(start, end))
  if (!parsed.ok) return malformed(text.slice(start, end), stop, what)
  const items = Array.isArray(parsed.value) ? parsed.value : [parsed.value]
  const calls = items.map(callOf)
  if (calls.length === 0 || calls.some((c) => c === null)) return null
  return { calls: calls as RawCall[], end: stop }
}

/** Qwen3-Coder's XML values, typed by the tool's schema (a string stays a string). */
function typedValue(raw: string, schema: unknown): unknown {
  const type = isRecord(schema) && typeof schema.type === 'string' ? schema.type : 'string'
  if (type === 'string') return raw
  if (raw === 'null') return null
  const parsed = parseJson(raw)
  if (!parsed.ok) return raw
  if (type === 'integer' || type === 'number') return typeof parsed.value === 'number' ? parsed.value : raw
  if (type === 'boolean') return typeof parsed.value === 'boolean' ? parsed.value : raw
  return parsed.value
}

/** `<function=NAME><parameter=KEY>\nVALUE\n</parameter>…</function>` (Qwen3-Coder's template). */
function xmlCalls(body: string, ctx: FormatContext): RawCall[] | null {
  const calls: RawCall[] = []
  const fn = /<function=([^>\n]+)>([\s\S]*?)(?:<\/function>|$)/g
  for (const match of body.matchAll(fn)) {
    const name = (match[1] as string).trim()
    const props = ctx.properties(name) ?? {}
    const args: Json = {}
    const param = /<parameter=([^>\n]+)>([\s\S]*?)(?:<\/parameter>|(?=<parameter=)|$)/g
    for (const p of (match[2] as string).matchAll(param)) {
      const key = (p[1] as string).trim()
      const value = (p[2] as string).replace(/^\n/, '').replace(/\n$/, '')
      args[key] = typedValue(value, props[key])
    }
    calls.push({ name, arguments: JSON.stringify(args) })
  }
  return calls.length > 0 ? calls : null
}

const TOOL_CALL = '<tool_call>'
const TOOL_CALL_END = '</tool_call>'

/** Hermes / Qwen2.5 / Qwen3: `<tool_call>\n{"name": …, "arguments": {…}}\n</tool_call>`, one block per call. */
export const parseHermes: Parser = (text, at, ctx) => {
  const calls: RawCall[] = []
  let end = at
  for (let i = at; text.startsWith(TOOL_CALL, i); i = skipWs(text, end)) {
    const bodyStart = i + TOOL_CALL.length
    const close = text.indexOf(TOOL_CALL_END, bodyStart)
    const next = text.indexOf(TOOL_CALL, bodyStart)
    const tagClose = close !== -1 && (next === -1 || close < next) ? close : -1
    const start = skipWs(text, bodyStart)
    const afterTag = (stop: number) => (tagClose === -1 ? stop : tagClose + TOOL_CALL_END.length)
    if (text.startsWith('<function=', start)) {
      const stop = tagClose === -1 ? (next === -1 ? text.length : next) : tagClose
      const xml = xmlCalls(text.slice(start, stop), ctx)
      if (xml === null) return { unreadable: 'the <function=…> block names no function', end: afterTag(stop) }
      calls.push(...xml)
      end = afterTag(stop)
      continue
    }
    if (text.startsWith('```', start)) {
      const stop = tagClose === -1 ? text.length : tagClose
      const parsed = parseJson(unfenced(text.slice(start, stop).trim()))
      const call = parsed.ok ? callOf(parsed.value) : null
      if (call === null) return malformed(text.slice(start, stop).trim(), afterTag(stop), 'the call')
      calls.push(call)
      end = afterTag(stop)
      continue
    }
    if (text[start] !== '{' && text[start] !== '[') return null
    const one = jsonCalls(text, start, tagClose, 'the <tool_call> block')
    if (one === null || 'unreadable' in one) return one
    calls.push(...one.calls)
    end = tagClose === -1 ? one.end : afterTag(one.end)
  }
  return { calls, end }
}

/** Llama 3.1–3.3: `<|python_tag|>{"name": …, "parameters": {…}}`, several separated by `;`. */
export const parseLlama: Parser = (text, at) => {
  const calls: RawCall[] = []
  let i = skipWs(text, at + '<|python_tag|>'.length)
  if (text[i] !== '{') return null
  let end = i
  while (text[i] === '{') {
    const one = jsonCalls(text, i, -1, 'the call after <|python_tag|>')
    if (one === null || 'unreadable' in one) return one
    calls.push(...one.calls)
    end = one.end
    i = skipWs(text, end)
    if (text[i] !== ';') break
    i = skipWs(text, i + 1)
  }
  return { calls, end }
}

const BARE_KEYS = new Set(['name', 'parameters', 'arguments', 'type'])

/**
 * Llama's JSON tool call without its tag: the whole reply is `{"name": …, "parameters": {…}}` (or several,
 * `;`-separated). Only exactly that shape naming a tool that exists: any other JSON is the answer.
 */
export const parseBareJson: Parser = (text, at, ctx) => {
  const calls: RawCall[] = []
  let i = at
  let end = at
  while (text[i] === '{') {
    const close = jsonEnd(text, i)
    if (close === -1) return null
    const parsed = parseJson(text.slice(i, close))
    if (!parsed.ok || !isRecord(parsed.value)) return null
    const value = parsed.value
    const args = value.parameters ?? value.arguments
    if (!Object.keys(value).every((k) => BARE_KEYS.has(k)) || !isRecord(args)) return null
    if (value.type !== undefined && value.type !== 'function') return null
    if (typeof value.name !== 'string' || !ctx.known(value.name)) return null
    calls.push({ name: value.name, arguments: JSON.stringify(args) })
    end = close
    i = skipWs(text, end)
    if (text[i] === ';') i = skipWs(text, i + 1)
  }
  return calls.length > 0 ? { calls, end } : null
}

const TOOL_CALLS = '[TOOL_CALLS]'

/**
 * Mistral: `[TOOL_CALLS][{"name": …, "arguments": {…}}, …]` (tokenizers v2–v7: Mistral 7B v0.3, Nemo,
 * Codestral) and `[TOOL_CALLS]name[ARGS]{…}` per call (v11+: Mistral Small 3.1+, Devstral, Magistral),
 * with `[CALL_ID]id` between when the template adds one, or no `[ARGS]` when the server dropped it.
 */
export const parseMistral: Parser = (text, at) => {
  const calls: RawCall[] = []
  let end = at
  for (let i = at; text.startsWith(TOOL_CALLS, i); i = skipWs(text, end)) {
    const j = skipWs(text, i + TOOL_CALLS.length)
    if (text[j] === '[') {
      const one = jsonCalls(text, j, -1, 'the [TOOL_CALLS] list')
      if (one === null || 'unreadable' in one) return one
      calls.push(...one.calls)
      end = one.end
      continue
    }
    const name = /^[A-Za-z_][A-Za-z0-9_.-]*/.exec(text.slice(j, j + 200))?.[0]
    if (name === undefined) return null
    let k = j + name.length
    if (text.startsWith('[CALL_ID]', k)) {
      const args = text.indexOf('[ARGS]', k)
      if (args === -1) return null
      k = args
    }
    if (text.startsWith('[ARGS]', k)) k += '[ARGS]'.length
    k = skipWs(text, k)
    if (text[k] !== '{') return null
    const close = jsonEnd(text, k)
    end = close === -1 ? text.length : close
    calls.push({ name, arguments: text.slice(k, end) })
  }
  return { calls, end }
}

/**
 * DeepSeek V2.5/V3: `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME\n```json\n{…}\n```
 * <｜tool▁call▁end｜>…<｜tool▁calls▁end｜>`; V3.1 and later: `<｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{…}<｜tool▁call▁end｜>`.
 */
export const parseDeepSeek: Parser = (text, at) => {
  const calls: RawCall[] = []
  let i = text.startsWith(DS.callsBegin, at) ? at + DS.callsBegin.length : at
  let end = i
  for (i = skipWs(text, i); text.startsWith(DS.callBegin, i); i = skipWs(text, end)) {
    const start = i + DS.callBegin.length
    const close = text.indexOf(DS.callEnd, start)
    const body = text.slice(start, close === -1 ? text.length : close)
    end = close === -1 ? text.length : close + DS.callEnd.length
    const sep = body.indexOf(DS.sep)
    if (sep === -1) return { unreadable: 'a DeepSeek tool call without <｜tool▁sep｜>', end }
    const right = body.slice(sep + DS.sep.length)
    const v3 = /^([^\n]+)\n\s*```(?:json)?[ \t]*\n([\s\S]*?)\n?\s*```\s*$/.exec(right)
    const name = (v3 ? (v3[1] as string) : body.slice(0, sep)).trim()
    if (name === '') return { unreadable: 'a DeepSeek tool call without a name', end }
    calls.push({ name, arguments: v3 ? (v3[2] as string).trim() : unfenced(right.trim()) })
  }
  if (calls.length === 0) return null
  const after = skipWs(text, end)
  if (text.startsWith(DS.callsEnd, after)) end = after + DS.callsEnd.length
  return { calls, end }
}

/** One Harmony message: `[<|start|>ROLE]<|channel|>CHANNEL [to=…] [<|constrain|>json]<|message|>CONTENT<|end|>`. */
const HARMONY =
  /(?:<\|start\|>([^<]*))?<\|channel\|>([^<]*)(?:<\|constrain\|>[^<]*)?<\|message\|>([\s\S]*?)(<\|end\|>|<\|call\|>|<\|return\|>|(?=<\|start\|>)|$)/
    .source

/**
 * gpt-oss (Harmony): a message whose header has `to=functions.NAME` (in the channel or the role part)
 * is a call, its content the JSON arguments; `analysis` messages are reasoning, the others the answer.
 */
export const parseHarmony: Parser = (text, at) => {
  const calls: RawCall[] = []
  let answer = ''
  let reasoning = ''
  let end = at
  // Sticky, and made per call: its lastIndex is the parse position.
  const message = new RegExp(HARMONY, 'y')
  message.lastIndex = at
  for (let m = message.exec(text); m !== null && m[0] !== ''; m = message.exec(text)) {
    end = message.lastIndex
    const header = `${m[1] ?? ''} ${m[2] ?? ''}`
    const content = m[3] as string
    const recipient = /\bto=functions\.([A-Za-z0-9_.-]+)/.exec(header)?.[1]
    if (recipient) calls.push({ name: recipient, arguments: content.trim() })
    else if ((m[2] ?? '').trim().startsWith('analysis')) reasoning += content
    else answer += content
    message.lastIndex = skipWs(text, end)
  }
  if (calls.length === 0) return null
  return { calls, end, text: text.slice(0, at) + answer, reasoning }
}
