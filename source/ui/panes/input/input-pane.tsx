import { Box, useCursor, useWindowSize } from 'ink'
import { Text } from '../../components/text.js'
import { useEffect } from 'react'
import stringWidth from 'string-width'
import type { Flash } from '../../shell-context.js'
import { layoutEditor, rowSegments, visibleWindow } from './editor-layout.js'
import {
  flashRows,
  MAX_QUEUED_ROWS,
  PROMPT_HINT,
  PROMPT,
  queuedRow,
  separator,
  vimTag,
} from './prompt-row.js'
import type { CompletionItem } from './completion.js'
import { usePrompt } from './use-prompt.js'
import { useTheme } from '../../components/theme-context.js'

export interface InputPaneProps {
  width: number
  /** Rows the whole pane may take (separator, flash, popup and editor). */
  maxHeight: number
  /** Whether keys and pastes go to the prompt (false while a dialog, overlay or other pane has focus). */
  active: boolean
  flash: Flash | null
  /** The tasks pane has the keys: the empty prompt says so, its ❯ dimmed meanwhile. */
  focusedElsewhere?: boolean
  /** What the empty prompt says meanwhile, when not the tasks pane's words (the transcript search). */
  awayHint?: string
  /** Told when the prompt becomes empty or not (the trust prompt waits for an empty one). */
  onDraftEmptyChange?: (empty: boolean) => void
}

const MAX_POPUP = 8
const AWAY_HINT = 'the tasks pane has the keys · type to write here · Esc back'

/**
 * The prompt at the bottom: a separator (with the busy/queue state), an optional message line, the
 * completion popup, and the multi-line editor with a visible caret. All behaviour is in `usePrompt`.
 */
export function InputPane({
  width,
  maxHeight,
  active,
  flash,
  onDraftEmptyChange,
  focusedElsewhere,
  awayHint = AWAY_HINT,
}: InputPaneProps) {
  const { palette: p } = useTheme()
  const view = usePrompt({ active })
  const draftEmpty = view.editor.text === ''
  useEffect(() => onDraftEmptyChange?.(draftEmpty), [draftEmpty, onDraftEmptyChange])
  const textWidth = Math.max(4, width - PROMPT.length)
  const shownText = view.search ? view.searchMatch : view.editor.text
  const cursor = view.search ? shownText.length : view.editor.cursor
  const layout = layoutEditor(shownText, cursor, textWidth)
  // Queued messages above the prompt, never more than a third of the pane (the editor comes first).
  const queuedRows = Math.min(
    view.queued.length > MAX_QUEUED_ROWS ? MAX_QUEUED_ROWS + 1 : view.queued.length,
    Math.max(0, Math.floor((maxHeight - 2) / 3)),
  )
  const shownQueued = view.queued.length > queuedRows ? Math.max(0, queuedRows - 1) : queuedRows
  const flashLines = flash ? flashRows(flash.text, width) : []
  const fixed = 1 + flashLines.length + queuedRows
  const popupRows = Math.min(view.items.length, MAX_POPUP, Math.max(0, maxHeight - fixed - 1))
  const editorRows = Math.max(1, Math.min(layout.rows.length, maxHeight - fixed - popupRows, 12))
  const window = visibleWindow(layout, editorRows)
  // The real terminal cursor goes to the caret so IME composition (CJK input) appears in place. The pane
  // is the bottom of a full-screen frame, so its rows are counted up from the last terminal row.
  const { rows: screenRows } = useWindowSize()
  const { setCursorPosition } = useCursor()
  const paneRows = fixed + popupRows + (window.end - window.start)
  const caretY = screenRows - paneRows + fixed + popupRows + (layout.caretRow - window.start)
  const caretRowText = layout.rows[layout.caretRow] ?? ''
  const caretX = PROMPT.length + stringWidth(caretRowText.slice(0, layout.caretIndex))
  const showCursor = active && !view.search && caretY >= 0 && caretY < screenRows && caretX < width
  setCursorPosition(showCursor ? { x: caretX, y: caretY } : undefined)

  return (
    <Box flexDirection="column" width={width} flexShrink={0}>
      <Text wrap="truncate" dimColor>
        {/* Under a consent prompt or a question, Enter and Esc answer it: the rule must not say otherwise. */}
        {separator(
          width,
          view.busy && active,
          view.queued.length,
          view.vim ? vimTag(view.vim.mode, view.vim.pending) : undefined,
        )}
      </Text>
      {view.queued.slice(0, shownQueued).map((message) => (
        <Text key={message.id} wrap="truncate" dimColor>
          {queuedRow(message.text, message.images)}
        </Text>
      ))}
      {queuedRows > shownQueued ? (
        <Text wrap="truncate" dimColor>
          {`  ⧗ … ${view.queued.length - shownQueued} more queued`}
        </Text>
      ) : null}
      {flash
        ? flashLines.map((line, i) => (
            <Text
              // biome-ignore lint/suspicious/noArrayIndexKey: wrapped lines are positional
              key={i}
              wrap="truncate"
              color={flash.level === 'error' ? p.error : flash.level === 'warn' ? p.warn : p.accent}
            >
              {line}
            </Text>
          ))
        : null}
      {popupRows > 0 ? (
        <Popup items={view.items} selected={view.popupIndex} rows={popupRows} width={width} />
      ) : null}
      {layout.rows.slice(window.start, window.end).map((row, i) => {
        const rowIndex = window.start + i
        const prefix = view.search
          ? i === 0
            ? `(search) ${view.search.query}: `
            : ''
          : rowIndex === 0
            ? PROMPT
            : '  '
        const showCaret = active && rowIndex === layout.caretRow
        return (
          <Text key={rowIndex} wrap="truncate">
            <Text color={view.search ? p.warn : focusedElsewhere ? p.muted : p.accent}>{prefix}</Text>
            {!shownText && rowIndex === 0 && !view.search ? (
              <>
                {showCaret ? <Text inverse> </Text> : null}
                <Text dimColor>{focusedElsewhere ? awayHint : PROMPT_HINT}</Text>
              </>
            ) : (
              rowSegments(row, showCaret ? layout.caretIndex : null).map((seg, j) => (
                <Text
                  // biome-ignore lint/suspicious/noArrayIndexKey: segments are positional
                  key={j}
                  inverse={seg.caret}
                  color={seg.mention ? p.accent : undefined}
                  underline={seg.mention}
                >
                  {seg.text}
                </Text>
              ))
            )}
          </Text>
        )
      })}
    </Box>
  )
}

function Popup({
  items,
  selected,
  rows,
  width,
}: {
  items: readonly CompletionItem[]
  selected: number
  rows: number
  width: number
}) {
  const { palette: p } = useTheme()
  const start = Math.min(Math.max(0, selected - rows + 1), Math.max(0, items.length - rows))
  const labelWidth = Math.min(28, Math.max(...items.map((i) => i.label.length)) + 2)
  return (
    <Box flexDirection="column" width={width}>
      {items.slice(start, start + rows).map((item, i) => {
        const active = start + i === selected
        return (
          <Text key={item.label} wrap="truncate" inverse={active}>
            {'  '}
            {/* Labels past the column (long MCP prompt commands) still keep a gap before the detail. */}
            <Text color={active ? undefined : p.accent}>
              {item.label.padEnd(Math.max(labelWidth, item.label.length + 2))}
            </Text>
            <Text dimColor={!active}>{item.detail}</Text>
          </Text>
        )
      })}
    </Box>
  )
}
