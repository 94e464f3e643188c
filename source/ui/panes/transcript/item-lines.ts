import stringWidth from 'string-width'
import wrapAnsi from 'wrap-ansi'
import type { AttachmentNote, ToolDisplay, Todo } from '../../../store/domain.js'
import type { AssistantItem, HookItem, ToolItem, ToolStatus, TranscriptItem } from '../../../store/state.js'
import { renderDiffLines } from '../../components/diff-lines.js'
import { fileChangeLines } from '../../components/file-changes.js'
import { renderMarkdown, wrapText } from '../../components/markdown.js'
import type { Style, Theme } from '../../components/theme.js'
import { displayToolName } from '../../../mcp/display-name.js'
import { cleanText, TITLE } from '../../../util/display-text.js'

export interface ItemLinesOptions {
  /** Ctrl+O state of this item: full reasoning / tool output instead of the collapsed preview. */
  expanded: boolean
  theme: Theme
}

/** Lines a collapsed tool card shows of its output. */
export const PREVIEW_LINES = 4
/** Lines a collapsed diff shows before "+N more". */
export const DIFF_PREVIEW_LINES = 12
/** Cap for expanded output; the full text stays reachable through /export. */
export const EXPANDED_LINES = 200

const STATUS_GLYPH: Record<ToolStatus, string> = {
  pending: '◌',
  running: '◌',
  done: '✓',
  error: '✗',
  denied: '⊘',
  cancelled: '∅',
}

const NOTICE_GLYPH = { info: '·', warn: '⚠', error: '✗' } as const

/**
 * Renders one transcript item to terminal lines, each at most `width` columns wide and carrying its own
 * ANSI styling. Pure: the same item, width and options always give the same lines, which is what lets the
 * line cache keep them. An assistant item renders as its reasoning lines followed by its text lines, so
 * a streaming text can be rendered in pieces and concatenated.
 */
export function renderItemLines(item: TranscriptItem, width: number, opts: ItemLinesOptions): string[] {
  const w = Math.max(4, width)
  switch (item.kind) {
    case 'user':
      return [
        ...renderUser(item.text, item.images, w, opts.theme, item.pinned === true),
        ...renderAttachments(item.attachments ?? [], w, opts.theme),
      ]
    case 'assistant':
      return renderAssistant(item, w, opts)
    case 'tool':
      return renderTool(item, w, opts)
    case 'notice': {
      const style = opts.theme.notice[item.level]
      return prefixed(wrapText(style(clean(item.text)), w - 2), style(NOTICE_GLYPH[item.level]))
    }
    case 'hook':
      return renderHook(item, w, opts)
  }
}

/** One line; Ctrl+O shows the command, how it ended and what it printed. */
function renderHook(item: HookItem, width: number, { expanded, theme }: ItemLinesOptions): string[] {
  const style = item.level === 'info' ? theme.dim : theme.notice[item.level]
  const out = prefixed(wrapText(style(clean(item.text)), width - 2), style('↪'))
  if (!expanded || !item.detail) return out
  const body = outputBlock(item.detail, width - 4, { max: EXPANDED_LINES, from: 'head', expanded, theme })
  body.forEach((line, i) => {
    out.push((i === 0 ? theme.dim('  ⎿ ') : '    ') + line)
  })
  return out
}

/** Marks a pinned item: masking and compaction keep it verbatim. */
const PINNED = 'pinned'

function renderUser(text: string, images: number, width: number, theme: Theme, pinned: boolean): string[] {
  const suffix =
    (images > 0 ? theme.dim(` [${images} image${images === 1 ? '' : 's'}]`) : '') +
    (pinned ? theme.notice.warn(` · ${PINNED}`) : '')
  const body = clean(text).replace(/\n+$/, '')
  return prefixed(wrapText(theme.userText(body) + suffix, width - 2), theme.userMarker('›'))
}

/** What the message's `@path` mentions attached: `⎿ @notes.txt · 3 lines`, a refusal in yellow. */
function renderAttachments(attachments: readonly AttachmentNote[], width: number, theme: Theme): string[] {
  return attachments.flatMap((a, i) => {
    const style = a.attached ? theme.dim : theme.notice.warn
    const lines = wrapText(style(clean(`@${a.mention} · ${a.detail}`)), width - 4)
    return lines.map((line, j) => (i === 0 && j === 0 ? theme.dim('  ⎿ ') : '    ') + line)
  })
}

function renderAssistant(
  item: AssistantItem,
  width: number,
  { expanded, theme }: ItemLinesOptions,
): string[] {
  const out: string[] = []
  const reasoning = clean(item.reasoning).trim()
  if (reasoning) {
    const count = reasoning.split('\n').length
    if (!expanded) {
      const label = `∴ Thinking… (${count} line${count === 1 ? '' : 's'}, Ctrl+O to expand)`
      out.push(...wrapText(theme.reasoning(label), width))
    } else {
      out.push(theme.reasoning('∴ Thinking'))
      out.push(...indent(wrapText(theme.reasoning(reasoning), width - 2), 2))
    }
  }
  const text = clean(item.text)
  if (text.trim()) out.push(...indent(renderMarkdown(text, width - 2, theme), 2))
  if (item.pinned && out.length > 0) out.push(`  ${theme.notice.warn(`· ${PINNED}`)}`)
  return out
}

function renderTool(item: ToolItem, width: number, { expanded, theme }: ItemLinesOptions): string[] {
  const status = theme.toolStatus[item.status]
  // MCP tools show as `server › tool` rather than `mcp__server__tool`. The title says what the call
  // acts on: what would hide or reorder part of it is shown (`evil⟨U+202E⟩txt`), not dropped.
  const parts = [theme.toolName(title(displayToolName(item.name)))]
  // Tool summaries usually start with the tool's own name ("Read a.txt"); show the name once.
  const summary = title(item.summary.replace(/\s*\n\s*/g, ' ')).replace(
    new RegExp(`^${escapeRegExp(item.name)}(?::\\s*|\\s+|$)`),
    '',
  )
  if (summary) parts.push(summary)
  const facts: string[] = []
  if (item.status === 'running' && item.waiting)
    facts.push(item.waiting === 'approval' ? 'waiting for approval' : 'waiting for your answer')
  else if (item.status === 'running') facts.push('running…')
  else if (item.status === 'pending') facts.push('waiting…')
  else if (item.status === 'denied' || item.status === 'cancelled') facts.push(item.status)
  if (item.durationMs !== null && item.status !== 'running') facts.push(formatDuration(item.durationMs))
  const header =
    parts.join(' ') +
    (facts.length ? theme.dim(` · ${facts.join(' · ')}`) : '') +
    (item.pinned ? theme.notice.warn(` · ${PINNED}`) : '')
  const out = prefixed(wrapText(header, width - 2), status(STATUS_GLYPH[item.status]))
  const body = toolBody(item, width - 4, expanded, theme)
  if (item.masked)
    body.push(...wrapText(theme.dim('(masked from model context; the model can Read it back)'), width - 4))
  body.forEach((line, i) => {
    out.push((i === 0 ? theme.dim('  ⎿ ') : '    ') + line)
  })
  return out
}

function toolBody(item: ToolItem, width: number, expanded: boolean, theme: Theme): string[] {
  const max = expanded ? EXPANDED_LINES : PREVIEW_LINES
  const display = item.display
  if (item.status === 'running' || item.status === 'pending') {
    return outputBlock(item.preview, width, { max: PREVIEW_LINES, from: 'tail', expanded: false, theme })
  }
  if (!display) {
    const failed = item.status === 'error'
    const text = expanded ? item.result || item.preview : item.preview || (failed ? item.result : '')
    const style = failed ? theme.notice.error : undefined
    return outputBlock(text, width, { max, from: 'head', expanded, theme, style })
  }
  return displayBody(display, width, expanded, theme)
}

/** Tool cards render from the typed `display`, never from the tool's name. */
function displayBody(display: ToolDisplay, width: number, expanded: boolean, theme: Theme): string[] {
  const max = expanded ? EXPANDED_LINES : PREVIEW_LINES
  switch (display.kind) {
    case 'diff': {
      const stats = `${theme.diff.added(`+${display.added}`)} ${theme.diff.removed(`-${display.removed}`)}`
      const head = `${stats}${display.created ? theme.dim(' (new file)') : ''}`
      const maxLines = expanded ? EXPANDED_LINES : DIFF_PREVIEW_LINES
      return [head, ...renderDiffLines(display.diff, width, { maxLines, theme })]
    }
    case 'diffs':
      return fileChangeLines(display.files, width, {
        maxLines: expanded ? EXPANDED_LINES : DIFF_PREVIEW_LINES,
        theme,
      })
    case 'command': {
      const out = outputBlock(display.output, width, { max, from: 'tail', expanded, theme })
      const facts: string[] = []
      if (display.taskId) facts.push(theme.dim(`running in background as ${display.taskId}`))
      if (display.timedOut) facts.push(theme.notice.warn('timed out'))
      if (display.exitCode !== null && display.exitCode !== 0)
        facts.push(theme.notice.error(`exit ${display.exitCode}`))
      if (display.truncated) facts.push(theme.dim('output truncated'))
      if (out.length === 0 && facts.length === 0) facts.push(theme.dim('(no output)'))
      if (facts.length) out.push(...wrapText(facts.join(theme.dim(' · ')), width))
      return out
    }
    case 'todos':
      return display.todos.flatMap((todo) => todoLines(todo, width, theme))
    case 'file': {
      const note = display.note ? ` · ${clean(display.note)}` : ''
      return wrapText(theme.dim(`${display.lines} line${display.lines === 1 ? '' : 's'}${note}`), width)
    }
    case 'list': {
      const head = theme.dim(
        `${display.count} result${display.count === 1 ? '' : 's'}${display.truncated ? ' (truncated)' : ''}`,
      )
      const items = outputBlock(display.items.join('\n'), width, { max, from: 'head', expanded, theme })
      return [head, ...items]
    }
    case 'task': {
      const head = theme.dim(`task ${display.taskId} · ${display.status}`)
      const ports = (display.listening ?? []).flatMap((line) =>
        wrapText(theme.dim(`listening: ${clean(line)}`), width),
      )
      const output = outputBlock(display.output ?? '', width, { max, from: 'tail', expanded, theme })
      return [head, ...ports, ...output]
    }
    case 'text':
      // Prose (answers, decisions): wrapped at word boundaries, not cut mid-word like code.
      return outputBlock(display.text, width, { max, from: 'head', expanded, theme, prose: true })
    case 'plan':
      // The plan is what the user agreed to: shown whole, as Markdown, never collapsed.
      return [
        ...wrapText(theme.bold(clean(display.verdict)), width),
        ...renderMarkdown(clean(display.plan), width, theme),
      ]
  }
}

function todoLines(todo: Todo, width: number, theme: Theme): string[] {
  const text = clean(todo.status === 'in_progress' ? todo.activeForm || todo.content : todo.content)
  if (todo.status === 'completed')
    return prefixed(wrapText(theme.dim(text), width - 2), theme.toolStatus.done('☑'))
  if (todo.status === 'in_progress') {
    return prefixed(wrapText(theme.bold(text), width - 2), theme.toolStatus.running('◐'))
  }
  return prefixed(wrapText(text, width - 2), '☐')
}

interface BlockOptions {
  max: number
  from: 'head' | 'tail'
  expanded: boolean
  theme: Theme
  style?: Style | undefined
  /** Wrap at word boundaries (prose) instead of at the column (code, command output). */
  prose?: boolean
}

/**
 * Plain tool output, clipped to `max` lines from the head or tail with a note saying what was left out.
 * Output is untrusted: escape sequences are stripped and `\r` progress lines keep only their last state.
 */
function outputBlock(text: string, width: number, opts: BlockOptions): string[] {
  const source = sanitizeOutput(text)
  if (source === '') return []
  const all = source.split('\n')
  const take = opts.from === 'head' ? all.slice(0, opts.max) : all.slice(-opts.max)
  let lines = take.flatMap((line) => (opts.prose ? wrapText(line, width) : wrapCode(line, width)))
  if (lines.length > opts.max)
    lines = opts.from === 'head' ? lines.slice(0, opts.max) : lines.slice(-opts.max)
  if (opts.style) lines = lines.map((line) => (line ? (opts.style as Style)(line) : line))
  const hidden = all.length - take.length
  if (hidden <= 0) return lines
  const what = opts.from === 'head' ? 'more' : 'earlier'
  const how = opts.expanded ? '/export for the full text' : 'Ctrl+O to expand'
  const note = opts.theme.dim(`… +${hidden} ${what} line${hidden === 1 ? '' : 's'} (${how})`)
  return opts.from === 'head' ? [...lines, note] : [note, ...lines]
}

function sanitizeOutput(text: string): string {
  return text
    .replace(/\r\n/g, '\n')
    .replace(/\n+$/, '')
    .split('\n')
    .map((line) => clean(line.slice(line.lastIndexOf('\r', line.length - 2) + 1)))
    .join('\n')
}

/** Every text of an item is cleaned here, where it enters the view (see util/display-text.ts). */
function clean(text: string): string {
  return cleanText(text)
}

/** One line, with what is taken out shown in its place: a tool call's name and summary. */
function title(text: string): string {
  return cleanText(text, TITLE)
}

function wrapCode(line: string, width: number): string[] {
  const expanded = line.replaceAll('\t', '    ')
  if (stringWidth(expanded) <= width) return [expanded]
  return wrapAnsi(expanded, Math.max(1, width), { hard: true, trim: false, wordWrap: false }).split('\n')
}

/** Puts `marker` (one column) and a space before the first line and aligns the rest under it. */
function prefixed(lines: readonly string[], marker: string): string[] {
  return lines.map((line, i) => (i === 0 ? `${marker} ${line}` : `  ${line}`))
}

function indent(lines: readonly string[], by: number): string[] {
  const pad = ' '.repeat(by)
  return lines.map((line) => (line ? pad + line : line))
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`
  const minutes = Math.floor(ms / 60_000)
  const seconds = Math.round((ms % 60_000) / 1000)
  return `${minutes}m ${String(seconds).padStart(2, '0')}s`
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
