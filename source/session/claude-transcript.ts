import { createHash } from 'node:crypto'
import { closeSync, writeSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import type { ChatMessage, ContentPart } from '../store/messages.js'
import { openOwnFileForAppend, PRIVATE_DIR, replaceOwnFile } from '../util/safe-files.js'

/**
 * The conversation as Claude Code writes its transcript (docs/hooks.md#transcript_path), for hooks that
 * read the `transcript_path` they are given: one JSON object per line, `type` `user` or `assistant`,
 * `message.content` as Anthropic content blocks — `text`, `thinking`, `tool_use {id, name, input}`, and
 * `tool_result {tool_use_id, content, is_error}` in a user line — each assistant block on its own line, as
 * Claude Code streams them, chained by `uuid` / `parentUuid`. agent-tui's own session log stays what it
 * is; this file is written beside it only when a hook is about to run, and brought up to date then.
 */

export interface TranscriptContext {
  sessionId: string
  cwd(): string
  model(): string
  version: string
}

/** One line of the transcript, before it is written. */
export type TranscriptLine = Record<string, unknown>

/** `<log>.jsonl` → `<log>.transcript.jsonl`, beside it. */
export function transcriptPathFor(logPath: string): string {
  return join(dirname(logPath), `${basename(logPath, '.jsonl')}${TRANSCRIPT_SUFFIX}`)
}

export const TRANSCRIPT_SUFFIX = '.transcript.jsonl'

/**
 * The lines of `messages[from…]`, continuing the chain after `parent` (the uuid of the line before).
 * Ids are derived from the session and the position, so writing the file again gives the same ones.
 */
export function transcriptLines(
  messages: readonly ChatMessage[],
  ctx: TranscriptContext,
  from = 0,
  parent: string | null = null,
  now: () => string = () => new Date().toISOString(),
): { lines: TranscriptLine[]; last: string | null } {
  const lines: TranscriptLine[] = []
  let parentUuid = parent
  const push = (index: number, block: number, fields: TranscriptLine) => {
    const uuid = idOf(ctx.sessionId, `${index}:${block}`)
    lines.push({
      parentUuid,
      isSidechain: false,
      userType: 'external',
      cwd: ctx.cwd(),
      sessionId: ctx.sessionId,
      version: ctx.version,
      ...fields,
      uuid,
      timestamp: now(),
    })
    parentUuid = uuid
  }
  for (let i = from; i < messages.length; i++) {
    const message = messages[i] as ChatMessage
    if (message.role === 'user') {
      push(i, 0, { type: 'user', message: { role: 'user', content: userContent(message.content) } })
    } else if (message.role === 'system') {
      // Reminders and announcements: Claude Code marks its own such lines as meta.
      push(i, 0, { type: 'user', isMeta: true, message: { role: 'user', content: message.content } })
    } else if (message.role === 'tool') {
      push(i, 0, {
        type: 'user',
        message: {
          role: 'user',
          content: [
            {
              tool_use_id: message.tool_call_id,
              type: 'tool_result',
              content: message.content,
              is_error: message.content.startsWith('{"error":'),
            },
          ],
        },
      })
    } else {
      const blocks = assistantBlocks(message)
      const id = `msg_${idOf(ctx.sessionId, String(i)).replace(/-/g, '').slice(0, 24)}`
      blocks.forEach((block, b) => {
        const lastBlock = b === blocks.length - 1
        push(i, b, {
          type: 'assistant',
          message: {
            id,
            type: 'message',
            role: 'assistant',
            model: ctx.model(),
            content: [block],
            stop_reason: lastBlock ? (message.tool_calls?.length ? 'tool_use' : 'end_turn') : null,
            stop_sequence: null,
          },
        })
      })
    }
  }
  return { lines, last: parentUuid }
}

function userContent(content: string | ContentPart[]): string | Array<Record<string, unknown>> {
  if (typeof content === 'string') return content
  return content.map((part) => {
    if (part.type === 'text') return { type: 'text', text: part.text }
    const data = /^data:([^;,]+);base64,(.*)$/s.exec(part.image_url.url)
    return data
      ? { type: 'image', source: { type: 'base64', media_type: data[1], data: data[2] } }
      : { type: 'image', source: { type: 'url', url: part.image_url.url } }
  })
}

function assistantBlocks(
  message: Extract<ChatMessage, { role: 'assistant' }>,
): Array<Record<string, unknown>> {
  const blocks: Array<Record<string, unknown>> = []
  if (message.reasoning) blocks.push({ type: 'thinking', thinking: message.reasoning, signature: '' })
  if (message.content) blocks.push({ type: 'text', text: message.content })
  for (const call of message.tool_calls ?? []) {
    blocks.push({
      type: 'tool_use',
      id: call.id,
      name: call.function.name,
      input: inputOf(call.function.arguments),
    })
  }
  // An empty reply is still a reply: a hook looking for the last assistant line finds it.
  if (blocks.length === 0) blocks.push({ type: 'text', text: '' })
  return blocks
}

function inputOf(args: string): unknown {
  try {
    const value: unknown = JSON.parse(args)
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : {}
  } catch {
    return {}
  }
}

/** A v4-shaped uuid derived from `key`. */
function idOf(session: string, key: string): string {
  const hex = createHash('sha256').update(`${session}\0${key}`).digest('hex')
  const variant = ((Number.parseInt(hex[16] as string, 16) & 0x3) | 0x8).toString(16)
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`
}

export interface ClaudeTranscript {
  readonly path: string
  /**
   * Brings the file up to date with the conversation and returns its path: new messages are appended;
   * when the conversation changed behind them (`/clear`, `/rewind`, the first sync of a resumed session)
   * the file is written again whole. A failure leaves the file as it was and returns the path anyway.
   */
  sync(): string
}

/**
 * The transcript of one session at `path`, below `root` (the session logs' folder): written through
 * util/safe-files, so a link or a FIFO planted at its name is refused, never followed.
 */
export function createClaudeTranscript(opts: {
  path: string
  root: string
  messages(): readonly ChatMessage[]
  context: TranscriptContext
  /** A write that failed, once per session (for a notice). */
  onError?(error: Error): void
}): ClaudeTranscript {
  let written: readonly ChatMessage[] = []
  let last: string | null = null
  let reported = false
  const serialize = (lines: TranscriptLine[]) => lines.map((line) => `${JSON.stringify(line)}\n`).join('')
  return {
    path: opts.path,
    sync() {
      const messages = opts.messages()
      try {
        const continues = written.length <= messages.length && written.every((m, i) => messages[i] === m)
        if (continues && written.length > 0) {
          if (messages.length === written.length) return opts.path
          const next = transcriptLines(messages, opts.context, written.length, last)
          const fd = openOwnFileForAppend(opts.root, opts.path, { mode: 0o600, createDirs: PRIVATE_DIR })
          try {
            writeAll(fd, serialize(next.lines))
          } finally {
            closeSync(fd)
          }
          last = next.last
        } else {
          const all = transcriptLines(messages, opts.context)
          replaceOwnFile(opts.root, opts.path, serialize(all.lines), { mode: 0o600, createDirs: PRIVATE_DIR })
          last = all.last
        }
        written = [...messages]
      } catch (error) {
        if (!reported) opts.onError?.(error as Error)
        reported = true
      }
      return opts.path
    },
  }
}

function writeAll(fd: number, text: string): void {
  const bytes = Buffer.from(text)
  for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at)
}
