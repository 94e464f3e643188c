import type { Dispatch } from '../../store/create-store.js'
import type { OutputSpiller } from '../../tools/types.js'
import type { SubmitInput } from '../runtime/commands.js'
import type { UserInput } from './user-input.js'
import { mayMention, withMentions } from './mcp-mentions.js'
import { type MentionAttachment, mayMentionPath, withAttachments } from './mentions.js'
import type { McpRuntime } from '../runtime/session-tools.js'

interface Queued {
  id: string
  /** Null while its `@server:uri` resources are being read. */
  input: UserInput | null
  /** As submitted, so `unqueue` can hand it back to the prompt. */
  original: SubmitInput
}

/**
 * The user's messages on their way to the model: `@server:uri` mentions get their MCP resources
 * attached, `@path` mentions their files and folders (see mentions.ts), and messages sent while a turn runs wait in the queue, in the order they were sent (one
 * still reading its resources holds back those after it). The queue is mirrored in the store
 * (`queue/added`, `queue/removed`) so the prompt shows what waits; `unqueue` takes the newest back.
 */
export class MessageIntake {
  private readonly queued: Queued[] = []
  private chain: Promise<void> = Promise.resolve()
  private reading = 0
  private readonly deps: {
    mcp: McpRuntime | undefined
    spill: OutputSpiller
    warn(text: string): void
    dispatch: Dispatch
    newId(prefix: string): string
    /** What the message's `@path` mentions attach (consent asked where a Read would ask). */
    files?: (text: string, signal: AbortSignal) => Promise<MentionAttachment[]>
  }

  constructor(deps: MessageIntake['deps']) {
    this.deps = deps
  }

  /** Messages waiting (also those still reading their resources). */
  get length(): number {
    return this.queued.length
  }

  /** The message with the resources it mentions attached. */
  async prepare(input: UserInput, signal: AbortSignal): Promise<UserInput> {
    const { mcp, spill, warn, files } = this.deps
    const withResources = mcp ? await withMentions(input, mcp, spill, signal, warn) : input
    if (!files || !mayMentionPath(input.text)) return withResources
    return withAttachments(withResources, await files(input.text, signal))
  }

  enqueue(input: UserInput, original: SubmitInput): void {
    const entry: Queued = { id: this.deps.newId('queued'), input: null, original }
    this.queued.push(entry)
    this.deps.dispatch({
      type: 'queue/added',
      message: { id: entry.id, text: original.text, images: original.images?.length ?? 0 },
    })
    if (this.reading === 0 && !mayMention(input.text) && !mayMentionPath(input.text)) {
      entry.input = input
      return
    }
    this.reading++
    const signal = new AbortController().signal
    this.chain = this.chain.then(async () => {
      entry.input = await this.prepare(input, signal)
      this.reading--
    })
  }

  /**
   * Removes up to `count` (default: all) messages from the front that are ready, in order, and returns them;
   * `stop` ends the run at a message that waits for a turn of its own (a user command).
   */
  take(count = Number.POSITIVE_INFINITY, stop?: (input: UserInput) => boolean): UserInput[] {
    const taken: Queued[] = []
    for (
      let next = this.queued[0];
      taken.length < count && next?.input && !stop?.(next.input);
      next = this.queued[0]
    ) {
      taken.push(this.queued.shift() as Queued)
    }
    this.removed(taken)
    return taken.map((q) => q.input as UserInput)
  }

  /** Takes the newest message back out of the queue; null when none waits. */
  unqueue(): SubmitInput | null {
    const last = this.queued.pop()
    if (!last) return null
    this.removed([last])
    return last.original
  }

  clear(): void {
    this.removed(this.queued.splice(0))
  }

  /** Calls `then` at once when no queued message is still being read, else once they all are. */
  whenSettled(then: () => void): void {
    if (this.reading > 0) void this.chain.then(then)
    else then()
  }

  private removed(entries: Queued[]): void {
    if (entries.length) this.deps.dispatch({ type: 'queue/removed', ids: entries.map((q) => q.id) })
  }
}
