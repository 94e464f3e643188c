import { readdir, stat } from 'node:fs/promises'
import { homedir } from 'node:os'
import { isAbsolute, join, relative, resolve } from 'node:path'
import type { ContentPart, ImagePart } from '../../store/messages.js'
import type { AttachmentNote } from '../../store/domain.js'
import type { AnyTool, OutputSpiller, ToolContext } from '../../tools/types.js'
import { ToolError } from '../../tools/types.js'
import type { UserInput } from './loop.js'
import { type Authorization, authorize, type PermissionGate } from '../../permissions/gate.js'
import type { PermissionTarget } from '../../permissions/target.js'

/**
 * `@path` in a message attaches the file (as the Read tool shows it: the same line and size limits) or the
 * directory (a listing, spilled beyond the same limits). A mention is judged like a `Read` of its real path:
 * outside the workspace's boundary or a secrets file, it needs the user's consent — refused where nobody can
 * give it — and is never attached silently. Mentions of paths that do not exist stay plain text.
 */
export interface MentionAttachment extends AttachmentNote {
  /** What the model receives for it. */
  content: string
  images: ImagePart[]
}

export interface MentionDeps {
  workspace: string
  gate: PermissionGate
  read: AnyTool
  context(callId: string): ToolContext
  spill: OutputSpiller
  signal: AbortSignal
}

/** At most this many mentions of one message are attached. */
const MAX_MENTIONS = 10
const MAX_LISTING_LINES = 2000
const MAX_LISTING_CHARS = 100_000

/**
 * The intake's reader of `@path` mentions (message-intake.ts): attaches them with the Read tool; a
 * refusal goes to `refused` too when given (headless runs, where nobody sees the message's card).
 */
export function fileMentions(deps: {
  workspace: string
  gate: PermissionGate
  read(): AnyTool | undefined
  context(callId: string, signal: AbortSignal): ToolContext
  spill: OutputSpiller
  refused?: (text: string) => void
}): (text: string, signal: AbortSignal) => Promise<MentionAttachment[]> {
  return async (text, signal) => {
    const read = deps.read()
    if (!read) return []
    const { workspace, gate, spill } = deps
    const context = (callId: string) => deps.context(callId, signal)
    const attached = await attachMentions(text, { workspace, gate, read, context, spill, signal })
    for (const a of attached) if (!a.attached) deps.refused?.(`@${a.mention} ${a.detail}`)
    return attached
  }
}

/** The `@path` tokens of a message (an `@` at the start or after whitespace; `\ ` escapes a space). */
export function findMentions(text: string): string[] {
  const found: string[] = []
  for (const m of text.matchAll(/(?:^|\s)@((?:\\ |[^\s@])+)/g)) {
    const path = (m[1] ?? '').replace(/\\ /g, ' ')
    if (path && !found.includes(path)) found.push(path)
  }
  return found
}

export async function attachMentions(text: string, deps: MentionDeps): Promise<MentionAttachment[]> {
  const out: MentionAttachment[] = []
  const seen = new Set<string>()
  for (const mention of findMentions(text)) {
    if (out.length >= MAX_MENTIONS) break
    const found = await locate(mention, deps.workspace)
    if (!found || seen.has(found.abs)) continue
    seen.add(found.abs)
    out.push(await attachOne(found, deps, out.length + 1))
  }
  return out
}

/** The mention's path, or the path without trailing punctuation (`see @a.ts.`), when one exists. */
async function locate(mention: string, workspace: string) {
  for (const candidate of [mention, mention.replace(/[.,;:!?)\]}'"]+$/, '')]) {
    if (!candidate) continue
    const abs = absolute(candidate, workspace)
    const info = await stat(abs).catch(() => undefined)
    if (info?.isFile() || info?.isDirectory())
      return { mention: candidate, abs, directory: info.isDirectory() }
  }
  return undefined
}

function absolute(path: string, workspace: string): string {
  if (path === '~' || path.startsWith('~/')) return join(homedir(), path.slice(2))
  return isAbsolute(path) ? resolve(path) : resolve(workspace, path)
}

async function attachOne(
  found: { mention: string; abs: string; directory: boolean },
  deps: MentionDeps,
  n: number,
): Promise<MentionAttachment> {
  const { mention, abs, directory } = found
  const refused = (why: string): MentionAttachment => ({
    mention,
    attached: false,
    detail: `not attached: ${why}`,
    content: `[@${mention} was not attached: ${why}]`,
    images: [],
  })
  // The same one trip to the gate as a tool call's (permissions/gate.ts): judged, asked if need be.
  let auth: Authorization
  try {
    auth = await authorize(
      deps.gate,
      {
        callId: `mention-${n}`,
        tool: directory ? 'Glob' : 'Read',
        risk: 'read',
        summary: `attach @${mention} to your message`,
        target: { kind: 'path', path: abs, access: 'read' },
        readOnly: () => true,
      },
      { signal: deps.signal, preview: async () => ({ kind: 'json', text: abs }) },
    )
  } catch {
    auth = { decision: 'withdrawn' }
  }
  if (auth.decision === 'withdrawn') return refused('the request was withdrawn')
  if (auth.decision === 'deny') {
    if (auth.by === 'policy') return refused(auth.verdict.reason)
    if (auth.by === 'no-user') return refused(`${auth.verdict.reason}, and nobody can allow it here`)
    return refused(auth.answer.automatic ? (auth.answer.note ?? 'denied') : 'you declined')
  }
  try {
    return directory
      ? await listing(mention, abs, deps)
      : await fileContent(mention, abs, deps, n, auth.target)
  } catch (err) {
    return refused(err instanceof ToolError || err instanceof Error ? err.message : String(err))
  }
}

async function fileContent(
  mention: string,
  abs: string,
  deps: MentionDeps,
  n: number,
  judged: PermissionTarget,
): Promise<MentionAttachment> {
  // The target as judged: Read then reads that file only, not whatever the path leads to by then.
  const result = await deps.read.execute(
    { file_path: abs },
    { ...deps.context(`mention-${n}`), permission: judged },
  )
  const display = result.display
  const detail =
    display?.kind === 'file'
      ? display.note === 'partial'
        ? `first ${display.lines} lines`
        : display.lines > 0
          ? `${display.lines} line${display.lines === 1 ? '' : 's'}`
          : (display.note ?? 'attached')
      : 'attached'
  return {
    mention,
    attached: true,
    detail,
    content: `[@${mention} — the file ${abs}, as the Read tool shows it:]\n${result.forModel}`,
    images: result.images ?? [],
  }
}

async function listing(mention: string, abs: string, deps: MentionDeps): Promise<MentionAttachment> {
  const entries = await readdir(abs, { withFileTypes: true })
  const names = entries
    .map((e) => (e.isDirectory() ? `${e.name}/` : e.name))
    .sort((a, b) => Number(b.endsWith('/')) - Number(a.endsWith('/')) || a.localeCompare(b))
  const shown: string[] = []
  let chars = 0
  for (const name of names.slice(0, MAX_LISTING_LINES)) {
    chars += name.length + 1
    if (chars > MAX_LISTING_CHARS) break
    shown.push(name)
  }
  let note = ''
  if (shown.length < names.length) {
    const path = await deps.spill.spill(
      names.join('\n'),
      `listing ${relative(deps.workspace, abs) || 'workspace'}`,
    )
    note = `\n[${names.length - shown.length} more entries; the full listing is in ${path} (Read it)]`
  }
  const count = `${names.length} entr${names.length === 1 ? 'y' : 'ies'}`
  return {
    mention,
    attached: true,
    detail: `directory, ${count}`,
    content: `[@${mention} — the directory ${abs}, ${count} (folders end with /):]\n${shown.join('\n')}${note}`,
    images: [],
  }
}

/** Whether `text` has anything shaped like an `@path` mention (before the disk is asked). */
export function mayMentionPath(text: string): boolean {
  return /(?:^|\s)@[^\s@]/.test(text)
}

/**
 * The message with its attachments after what the user typed (the text first, then each file or listing,
 * then any images they bring), and what each mention became, for the transcript.
 */
export function withAttachments(input: UserInput, attachments: readonly MentionAttachment[]): UserInput {
  if (attachments.length === 0) return input
  const blocks = attachments.map((a) => a.content).join('\n\n')
  const pictures = attachments.flatMap((a) => a.images)
  const content: string | ContentPart[] =
    typeof input.content === 'string' && pictures.length === 0
      ? `${input.content}\n\n${blocks}`
      : [
          ...(typeof input.content === 'string'
            ? [{ type: 'text' as const, text: input.content }]
            : input.content),
          { type: 'text' as const, text: blocks },
          ...pictures,
        ]
  const notes = attachments.map(({ mention, attached, detail }) => ({ mention, attached, detail }))
  return { ...input, content, attachments: [...(input.attachments ?? []), ...notes] }
}
