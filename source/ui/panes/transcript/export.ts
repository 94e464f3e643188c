import type { ToolDisplay } from '../../../store/domain.js'
import type { State, ToolItem, TranscriptItem } from '../../../store/state.js'
import { formatDuration } from './item-lines.js'

/**
 * The whole transcript as Markdown, for /export and --print-on-exit: every user message, assistant text
 * (with reasoning), tool call with its full result, and notice — nothing the pane clips or collapses is
 * lost here. Pure.
 */
export function transcriptToMarkdown(state: State): string {
  const { session, transcript } = state
  const title = session.title || 'agent-tui transcript'
  const started = Number.isFinite(session.startedAt) ? new Date(session.startedAt).toISOString() : ''
  const meta = [session.model, session.cwd, session.id, started]
  const parts = [`# ${oneLine(title)}`, `_${meta.filter(Boolean).map(oneLine).join(' · ')}_`]
  for (const id of transcript.order) {
    const item = transcript.items[id]
    if (item) parts.push(itemToMarkdown(item))
  }
  return `${parts.filter((p) => p !== '').join('\n\n')}\n`
}

function itemToMarkdown(item: TranscriptItem): string {
  switch (item.kind) {
    case 'user': {
      const images =
        item.images > 0 ? `\n\n_(${item.images} image${item.images === 1 ? '' : 's'} attached)_` : ''
      return `## User${item.pinned ? ' (pinned)' : ''}\n\n${item.text.trim()}${images}`
    }
    case 'assistant': {
      const parts: string[] = []
      if (item.reasoning.trim()) parts.push(quote(`**Thinking**\n\n${item.reasoning.trim()}`))
      if (item.text.trim()) parts.push(item.text.trim())
      if (item.streaming) parts.push('_(interrupted while streaming)_')
      return parts.length ? `## Assistant${item.pinned ? ' (pinned)' : ''}\n\n${parts.join('\n\n')}` : ''
    }
    case 'tool':
      return toolToMarkdown(item)
    case 'notice':
      return quote(`**${item.level}:** ${item.text.trim()}`)
    case 'hook':
      return [quote(`**hook:** ${item.text.trim()}`), item.detail ? fence(item.detail) : '']
        .filter(Boolean)
        .join('\n\n')
  }
}

function toolToMarkdown(item: ToolItem): string {
  const facts: string[] = [item.status]
  if (item.durationMs !== null) facts.push(formatDuration(item.durationMs))
  if (item.masked) facts.push('masked from model context')
  if (item.pinned) facts.push('pinned')
  const summary = item.summary && item.summary !== item.name ? ` ${oneLine(item.summary)}` : ''
  const header = `### Tool \`${item.name}\`${summary} (${facts.join(', ')})`
  const parts = [header]
  const display = item.display ? displayToMarkdown(item.display) : ''
  if (display) parts.push(display)
  // Displays that already carry the content (command output, diff, text) make the result redundant,
  // unless the call failed: then the result is the error the model saw.
  const carries =
    item.display !== null && ['command', 'diff', 'diffs', 'text', 'plan'].includes(item.display.kind)
  const result = item.result || item.preview
  if (result.trim() && (!carries || item.status !== 'done')) parts.push(fence(result))
  return parts.join('\n\n')
}

function displayToMarkdown(display: ToolDisplay): string {
  switch (display.kind) {
    case 'diff':
      return `\`${display.path}\`${display.created ? ' (new file)' : ''}: +${display.added} -${display.removed}\n\n${fence(display.diff, 'diff')}`
    case 'diffs':
      return display.files
        .map((file) => {
          const what =
            file.change === 'created'
              ? ' (new file)'
              : file.change === 'deleted'
                ? ' (deleted)'
                : file.movedFrom !== undefined
                  ? ` (moved from \`${file.movedFrom}\`)`
                  : ''
          return `\`${file.path}\`${what}: +${file.added} -${file.removed}\n\n${fence(file.diff, 'diff')}`
        })
        .join('\n\n')
    case 'command': {
      const facts = [display.exitCode === null ? 'no exit code' : `exit ${display.exitCode}`]
      if (display.timedOut) facts.push('timed out')
      if (display.truncated) facts.push('output truncated')
      if (display.taskId) facts.push(`background task ${display.taskId}`)
      const output = display.output.trim() ? `\n\n${fence(display.output)}` : ''
      return `${fence(`$ ${display.command}`, 'sh')}\n\n_${facts.join(', ')}_${output}`
    }
    case 'todos':
      return display.todos
        .map(
          (t) =>
            `- [${t.status === 'completed' ? 'x' : ' '}] ${t.content}${t.status === 'in_progress' ? ' _(in progress)_' : ''}`,
        )
        .join('\n')
    case 'file':
      return `\`${display.path}\` (${display.lines} line${display.lines === 1 ? '' : 's'})${display.note ? ` — ${display.note}` : ''}`
    case 'list':
      return `${display.count} result${display.count === 1 ? '' : 's'}${display.truncated ? ' (truncated)' : ''}`
    case 'task':
      return `Task \`${display.taskId}\`: ${display.status}${display.output?.trim() ? `\n\n${fence(display.output)}` : ''}`
    case 'text':
      return fence(display.text)
    case 'plan':
      return `**${display.verdict}**\n\n${display.plan.trim()}`
  }
}

/** A code fence longer than any backtick run inside `text`, so the content can never close it. */
function fence(text: string, lang = ''): string {
  const longest = Math.max(0, ...Array.from(text.matchAll(/`+/g), (m) => m[0].length))
  const marks = '`'.repeat(Math.max(3, longest + 1))
  return `${marks}${lang}\n${text.replace(/\n+$/, '')}\n${marks}`
}

function quote(text: string): string {
  return text
    .split('\n')
    .map((line) => (line ? `> ${line}` : '>'))
    .join('\n')
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim()
}
