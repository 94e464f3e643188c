import type { ChatMessage, ToolDefinition } from '../../store/messages.js'

/** A BPE encoding that `gpt-tokenizer` ships as its own entry point. */
export type Encoding = 'o200k_base' | 'cl100k_base'

/** Counts the tokens of a text in one encoding. */
export type TokenCounter = (text: string) => number

/** Loads an encoding's counter; the default imports only that encoding's entry point of gpt-tokenizer. */
export type CounterLoader = (encoding: Encoding) => Promise<TokenCounter>

/** Tokens a chat template adds around each message (role markers, separators). */
const PER_MESSAGE = 4
/** What providers bill for one image part at their default detail; its base64 text is no measure of it. */
const PER_IMAGE = 765

/**
 * The encoding of OpenAI's model families, for exact counts; null for everyone else (their tokenizers are
 * not public or not shipped, so the profile's characters-per-token ratio estimates them).
 */
export function encodingFor(model: string): Encoding | null {
  const base = model.toLowerCase().split('/').at(-1) ?? ''
  if (/^(gpt-4o|chatgpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|gpt-oss|o1|o3|o4|codex)/.test(base)) return 'o200k_base'
  if (/^(gpt-4|gpt-3\.5|text-embedding-3)/.test(base)) return 'cl100k_base'
  return null
}

export const loadCounter: CounterLoader = async (encoding) => {
  // One entry point per encoding keeps the other encodings (megabytes of ranks) out of memory.
  const module =
    encoding === 'o200k_base'
      ? await import('gpt-tokenizer/encoding/o200k_base')
      : await import('gpt-tokenizer/encoding/cl100k_base')
  return (text) => module.countTokens(text)
}

/**
 * Token estimates for one session: exact for OpenAI families once their encoding has loaded (lazily, in
 * the background), the profile's characters-per-token ratio otherwise. Counts are cached per message
 * object — the store never mutates a message — so a step costs only its new messages.
 */
export class TokenEstimator {
  readonly #ratio: () => number
  readonly #encoding: () => Encoding | null
  readonly #load: CounterLoader
  #counter: { encoding: Encoding; count: TokenCounter } | null = null
  #loading: { encoding: Encoding; done: Promise<void> } | null = null
  #cache = new WeakMap<object, number>()
  #cacheKey = ''

  constructor(opts: { ratio: () => number; encoding: () => Encoding | null; load?: CounterLoader }) {
    this.#ratio = opts.ratio
    this.#encoding = opts.encoding
    this.#load = opts.load ?? loadCounter
  }

  /** Whether counts are exact (the model's encoding is loaded). */
  get exact(): boolean {
    const encoding = this.#encoding()
    return encoding !== null && this.#counter?.encoding === encoding
  }

  /** Starts loading the model's encoding if it has one; resolves when counts are as exact as they get. */
  ready(): Promise<void> {
    const encoding = this.#encoding()
    if (encoding === null || this.#counter?.encoding === encoding) return Promise.resolve()
    if (this.#loading?.encoding === encoding) return this.#loading.done
    const done = this.#load(encoding).then(
      (count) => {
        this.#counter = { encoding, count }
      },
      () => {
        // No encoding (a broken install): the ratio keeps estimating; nothing else depends on exactness.
      },
    )
    this.#loading = { encoding, done }
    return done
  }

  text(text: string): number {
    if (text === '') return 0
    const counter = this.#activeCounter()
    return counter ? counter(text) : Math.ceil(text.length / Math.max(0.5, this.#ratio()))
  }

  /** Tokens of text we only know the length of (what a spill left out), at the profile's ratio. */
  forChars(chars: number): number {
    return Math.ceil(chars / Math.max(0.5, this.#ratio()))
  }

  message(message: ChatMessage): number {
    const known = this.#cache.get(message)
    if (known !== undefined) return known
    const tokens = PER_MESSAGE + this.#contentTokens(message)
    this.#cache.set(message, tokens)
    return tokens
  }

  messages(messages: readonly ChatMessage[]): number {
    let total = 0
    for (const message of messages) total += this.message(message)
    return total
  }

  /** Tool definitions are byte-stable for a session: counted once per array. */
  tools(tools: readonly ToolDefinition[]): number {
    const known = this.#cache.get(tools)
    if (known !== undefined) return known
    const tokens = tools.length === 0 ? 0 : this.text(JSON.stringify(tools))
    this.#cache.set(tools, tokens)
    return tokens
  }

  #contentTokens(message: ChatMessage): number {
    let tokens = 0
    const content = message.content
    if (typeof content === 'string') tokens += this.text(content)
    else if (Array.isArray(content)) {
      for (const part of content) tokens += part.type === 'text' ? this.text(part.text) : PER_IMAGE
    }
    if (message.role === 'assistant') {
      for (const call of message.tool_calls ?? [])
        tokens += PER_MESSAGE + this.text(call.function.name) + this.text(call.function.arguments)
    }
    return tokens
  }

  #activeCounter(): TokenCounter | null {
    const encoding = this.#encoding()
    return encoding !== null && this.#counter?.encoding === encoding ? this.#counter.count : null
  }

  /**
   * Call before a round of counting: a switch of model (ratio or encoding) or a tokenizer that finished
   * loading invalidates every cached count. Once per round, not per message — it is on every step's path.
   */
  refresh(): void {
    const key = `${this.#ratio()}|${this.#activeCounter() ? this.#encoding() : ''}`
    if (key === this.#cacheKey) return
    this.#cacheKey = key
    this.#cache = new WeakMap()
  }
}
