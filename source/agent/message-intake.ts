import type { OutputSpiller } from '../tools/types.js'
import type { UserInput } from './loop.js'
import { mayMention, withMentions } from './mcp-mentions.js'
import type { McpRuntime } from './session-tools.js'

/**
 * The user's messages on their way to the model: `@server:uri` mentions get their MCP resources
 * attached, and messages sent while a turn runs wait in the queue, in the order they were sent (one
 * still reading its resources holds back those after it).
 */
export class MessageIntake {
  readonly queue: UserInput[] = []
  private chain: Promise<void> = Promise.resolve()
  private reading = 0
  private readonly deps: { mcp: McpRuntime | undefined; spill: OutputSpiller; warn(text: string): void }

  constructor(deps: MessageIntake['deps']) {
    this.deps = deps
  }

  /** The message with the resources it mentions attached. */
  prepare(input: UserInput, signal: AbortSignal): Promise<UserInput> {
    const { mcp, spill, warn } = this.deps
    return mcp ? withMentions(input, mcp, spill, signal, warn) : Promise.resolve(input)
  }

  enqueue(input: UserInput): void {
    if (this.reading === 0 && !mayMention(input.text)) {
      this.queue.push(input)
      return
    }
    this.reading++
    const signal = new AbortController().signal
    this.chain = this.chain.then(async () => {
      this.queue.push(await this.prepare(input, signal))
      this.reading--
    })
  }

  /** Calls `then` at once when no queued message is still being read, else once they all are. */
  whenSettled(then: () => void): void {
    if (this.reading > 0) void this.chain.then(then)
    else then()
  }
}
