import { Box } from 'ink'
import { cleanText, TITLE } from '../../../util/display-text.js'
import { Text } from '../../components/text.js'
import { useMemo } from 'react'
import stringWidth from 'string-width'
import type { ConsentRequest } from '../../../store/domain.js'
import { selectActiveConsent, selectConsentQueueLength } from '../../../store/selectors.js'
import type { Theme } from '../../components/theme.js'
import { useCommands, useStore } from '../../hooks/use-store.js'
import { KEY_PRIORITY, type KeyEvent, useKeyHandler } from '../../keys/dispatcher.js'
import { useKeyState } from '../../keys/use-key-state.js'
import { EMPTY_EDITOR, type EditorState } from '../input/editor-state.js'
import { editLineField, LineField } from '../input/line-field.js'
import {
  type ConsentChoice,
  choiceLabel,
  consentChoices,
  decisionFor,
  maxPreviewTop,
  previewLines,
  previewWindow,
  summaryAfterName,
  wrap,
  LOCAL_SETTINGS_PATH,
} from './consent-lines.js'
import { displayToolName } from '../../../mcp/display-name.js'
import { useTheme } from '../../components/theme-context.js'

export interface ConsentPromptProps {
  width: number
  /** Rows the prompt may use; the preview shrinks to fit. */
  maxHeight: number
  theme: Theme
}

/**
 * The permission prompt for the head of the consent queue, docked above the input. Non-modal: keys it
 * does not own (PgUp/PgDn while the preview is not opened, Ctrl+C…) fall through to the global handlers.
 */
export function ConsentPrompt(props: ConsentPromptProps) {
  const request = useStore(selectActiveConsent)
  const queued = useStore(selectConsentQueueLength)
  if (!request) return null
  // Keyed by id: a new request starts with the default selection and no note.
  return <ConsentRequestView key={request.id} request={request} queued={queued} {...props} />
}

const SHORT: Record<ConsentChoice, string> = {
  once: '1 once',
  session: '2 session',
  always: '3 always',
  edits: '4 all edits',
  folder: 'd folder',
  deny: 'Esc deny',
}

/** The answers on one line by their short names: `1 once  2 session  3 always  Esc deny`. */
function compactRow(choices: readonly ConsentChoice[]): string {
  return choices.map((c) => SHORT[c]).join('  ')
}

/** What the short answers grant, for the line under them: `2/3 Edit(f.txt) (3 saves to …) · d Edit(**)`. */
function rulesText(choices: readonly ConsentChoice[], request: ConsentRequest): string {
  const parts: string[] = []
  if (choices.includes('session') || choices.includes('always'))
    parts.push(`2/3 ${cleanText(request.suggestedRule, TITLE)} (3 saves to ${LOCAL_SETTINGS_PATH})`)
  if (choices.includes('folder')) parts.push(`d ${cleanText(request.directoryRule ?? '', TITLE)}`)
  return parts.join(' · ')
}

/** What Enter does with a note open, by the highlighted answer. */
const WITH_NOTE: Record<ConsentChoice, string> = {
  once: 'Enter allows once with the note',
  session: 'Enter allows for this session with the note',
  always: 'Enter always allows with the note',
  edits: 'Enter allows all edits with the note',
  folder: 'Enter allows the folder with the note',
  deny: 'Enter denies; the agent follows the note',
}

const KEY_OF: Record<Exclude<ConsentChoice, 'deny'>, Parameters<KeyEvent['has']>[0]> = {
  once: 'consent.once',
  session: 'consent.session',
  always: 'consent.always',
  edits: 'consent.edits',
  folder: 'consent.alwaysFolder',
}

function ConsentRequestView({
  request,
  queued,
  width,
  maxHeight,
  theme,
}: ConsentPromptProps & { request: ConsentRequest; queued: number }) {
  const { palette: p } = useTheme()
  const commands = useCommands()
  const choices = consentChoices(request)
  const [selected, setSelected, selectedRef] = useKeyState(0)
  const [note, setNote, noteRef] = useKeyState<EditorState | null>(null)
  // Ctrl+O: the whole preview in the prompt's room, scrolled with PgUp/PgDn (and ↑/↓).
  const [expanded, setExpanded, expandedRef] = useKeyState(false)
  const [top, setTop] = useKeyState(0)
  // One answer per request: keys pressed before the runtime removes it must not answer twice.
  const [decided, setDecided, decidedRef] = useKeyState(false)

  const inner = Math.max(10, width - 2)
  const preview = useMemo(
    () => previewLines(request.preview, inner - 2, theme),
    [request.preview, inner, theme],
  )
  const reason = wrap(`Why: ${request.reason}`, inner).slice(0, 2)
  // A program that deletes or runs any code is offered as the exact command only: say so beside it.
  const caution = request.ruleCaution
    ? wrap(`⚠ ${cleanText(request.ruleCaution, TITLE)}`, inner).slice(0, 2)
    : []
  const labels = choices.map((c) => choiceLabel(c, request, theme))
  const oneRow = `${labels.join('  ')}  Tab add note`
  const horizontal = stringWidth(oneRow) <= inner
  // Vertical options wrap under their text ("❯ " in front), so a long rule is never cut.
  const verticalLines = horizontal ? [] : labels.map((label) => wrap(label, inner - 2))
  const verticalRows = verticalLines.reduce((n, lines) => n + lines.length, 0)
  // border (2) + title + hint line (+ the note's line, + which subagent asks), then the reason and options
  // unless the preview is opened.
  const base = 4 + (note ? 1 : 0) + (request.agent ? 1 : 0) + (expanded ? 0 : reason.length + caution.length)
  // The preview gets the room first: when the options one per line would cut it, they go on one line
  // (short names) with the rules they save on the line below, so nobody approves what they have not seen.
  const rulesLines = wrap(theme.dim(rulesText(choices, request)), inner).slice(0, 2)
  const compact =
    !horizontal &&
    stringWidth(compactRow(choices)) <= inner &&
    preview.length > maxHeight - base - verticalRows
  const optionLines = compact ? [] : verticalLines
  const optionRows = horizontal ? 1 : compact ? 1 + rulesLines.length : verticalRows
  const fixed = base + (expanded ? 0 : optionRows)
  const previewRows = Math.max(1, maxHeight - fixed)
  const maxTop = maxPreviewTop(preview.length, previewRows)

  const decide = (choice: ConsentChoice, withNote?: string) => {
    setDecided(true)
    commands.resolveConsent(request.id, decisionFor(choice, withNote?.trim() || undefined))
  }
  const scroll = (by: number) => setTop((t) => Math.max(0, Math.min(maxTop, Math.min(t, maxTop) + by)))

  const onNoteKey = (ev: KeyEvent, current: EditorState): boolean => {
    if (ev.has('consent.select')) decide(choices[selectedRef.current] ?? 'once', current.text)
    else if (ev.key.escape || ev.has('consent.note')) setNote(null)
    // ←/→ move the caret in the note; ↑/↓ still choose which answer the note goes with (Deny included).
    else if (ev.key.upArrow) setSelected((s) => Math.max(0, s - 1))
    else if (ev.key.downArrow) setSelected((s) => Math.min(choices.length - 1, s + 1))
    else {
      const next = editLineField(current, ev)
      if (!next) return false
      setNote(next)
    }
    return true
  }

  useKeyHandler(KEY_PRIORITY.consent, (ev) => {
    const printable = ev.input !== '' && !ev.key.ctrl && !ev.key.meta && !ev.key.pageUp && !ev.key.pageDown
    if (decidedRef.current) return printable || ev.key.escape || ev.key.return
    if (noteRef.current) return onNoteKey(ev, noteRef.current)
    const direct = choices.find((c) => c !== 'deny' && ev.has(KEY_OF[c]))
    const page = Math.max(1, previewRows - 1)
    if (direct) decide(direct)
    else if (ev.has('consent.deny')) decide('deny')
    else if (ev.has('consent.select')) decide(choices[selectedRef.current] ?? 'once')
    else if (ev.has('consent.expand')) {
      setExpanded(!expandedRef.current)
      setTop(0)
    } else if (expandedRef.current && ev.has('consent.scrollUp')) scroll(-page)
    else if (expandedRef.current && ev.has('consent.scrollDown')) scroll(page)
    else if (expandedRef.current && (ev.key.upArrow || ev.key.downArrow)) scroll(ev.key.upArrow ? -1 : 1)
    else if (ev.has('consent.prev')) setSelected((s) => Math.max(0, s - 1))
    else if (ev.has('consent.next')) setSelected((s) => Math.min(choices.length - 1, s + 1))
    else if (ev.has('consent.note')) setNote(EMPTY_EDITOR)
    // Keys of answers this request does not offer (3 on a protected write) and other printable keys must
    // not leak into the input while a decision is pending.
    else return printable
    return true
  })

  const queue = queued > 1 ? ` · 1 of ${queued}` : ''
  const summary = summaryAfterName(request.tool, request.summary)
  const shown = previewWindow(preview, Math.min(top, maxTop), previewRows, expanded, theme)
  const hint = decided
    ? 'Answer sent…'
    : expanded
      ? `${choices.map((c) => SHORT[c]).join(' · ')} · Enter ${SHORT[choices[selected] ?? 'once'].replace(/^\S+ /, '')}`
      : horizontal
        ? '←/→ choose · Enter pick'
        : compact
          ? '←/→ choose · Enter pick · Tab add note · Ctrl+O whole preview'
          : '↑/↓ choose · Enter pick · Tab add note'

  return (
    <Box flexDirection="column" width={width} borderStyle="round" borderColor={p.warn} paddingX={0}>
      {request.agent ? (
        <Text wrap="truncate" color={p.special} bold>
          Subagent {request.agent} asks:
        </Text>
      ) : null}
      <Text wrap="truncate">
        <Text bold color={p.warn}>
          {displayToolName(request.tool)}
        </Text>
        {summary ? ` ${summary}` : ''}
        <Text dimColor> ({request.risk})</Text>
        <Text color={p.warn}>{queue}</Text>
      </Text>
      {expanded
        ? null
        : reason.map((line, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: wrapped lines are positional
            <Text key={i} wrap="truncate" dimColor>
              {line}
            </Text>
          ))}
      {shown.map((line, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: preview lines are positional
        <Text key={i} wrap="truncate" styled>
          {'  '}
          {line}
        </Text>
      ))}
      {expanded
        ? null
        : caution.map((line, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: wrapped lines are positional
            <Text key={`c${i}`} wrap="truncate" color={p.warn}>
              {line}
            </Text>
          ))}
      {expanded ? null : compact ? (
        <>
          <Text wrap="truncate">
            {choices.map((c, i) => (
              <Text key={c} inverse={i === selected} color={c === 'deny' ? p.error : undefined}>
                {SHORT[c]}
                {i < choices.length - 1 ? '  ' : ''}
              </Text>
            ))}
          </Text>
          {rulesLines.map((line, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: wrapped lines are positional
            <Text key={`r${i}`} wrap="truncate" styled>
              {line}
            </Text>
          ))}
        </>
      ) : horizontal ? (
        <Text wrap="truncate">
          {labels.map((label, i) => (
            <Text
              key={label}
              inverse={i === selected}
              color={choices[i] === 'deny' ? p.error : undefined}
              styled
            >
              {label}
              {'  '}
            </Text>
          ))}
          <Text dimColor>Tab add note</Text>
        </Text>
      ) : (
        optionLines.flatMap((lines, i) =>
          lines.map((line, j) => (
            <Text
              // biome-ignore lint/suspicious/noArrayIndexKey: wrapped lines are positional
              key={`${i}-${j}`}
              wrap="truncate"
              inverse={i === selected}
              color={choices[i] === 'deny' ? p.error : undefined}
              styled
            >
              {j > 0 ? '  ' : i === selected ? '❯ ' : '  '}
              {line}
            </Text>
          )),
        )
      )}
      {note ? (
        <Text wrap="truncate">
          <Text color={p.accent}>Note: </Text>
          <LineField state={note} focused />
        </Text>
      ) : null}
      <Text wrap="truncate" dimColor>
        {note && !decided
          ? `${WITH_NOTE[choices[selected] ?? 'once']} · ↑/↓ change answer · Esc drops note`
          : hint}
      </Text>
    </Box>
  )
}
