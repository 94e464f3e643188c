import { Box, Text } from 'ink'
import stringWidth from 'string-width'
import type { ConsentRequest } from '../../../store/domain.js'
import { selectActiveConsent, selectConsentQueueLength } from '../../../store/selectors.js'
import type { Theme } from '../../components/theme.js'
import { useCommands, useStore } from '../../hooks/use-store.js'
import { KEY_PRIORITY, type KeyEvent, useKeyHandler } from '../../keys/dispatcher.js'
import { useKeyState } from '../../keys/use-key-state.js'
import { EMPTY_EDITOR, type EditorState } from '../input/editor-state.js'
import { editLineField, LineField } from '../input/line-field.js'
import { CONSENT_CHOICES, type ConsentChoice, choiceLabel, previewLines } from './consent-lines.js'
import { displayToolName } from '../../../mcp/display-name.js'

export interface ConsentPromptProps {
  width: number
  /** Rows the prompt may use; the preview shrinks to fit. */
  maxHeight: number
  theme: Theme
}

/**
 * The permission prompt for the head of the consent queue, docked above the input. Non-modal: keys it
 * does not own (PgUp/PgDn, Ctrl+C…) fall through to the global handlers.
 */
export function ConsentPrompt(props: ConsentPromptProps) {
  const request = useStore(selectActiveConsent)
  const queued = useStore(selectConsentQueueLength)
  if (!request) return null
  // Keyed by id: a new request starts with the default selection and no note.
  return <ConsentRequestView key={request.id} request={request} queued={queued} {...props} />
}

function ConsentRequestView({
  request,
  queued,
  width,
  maxHeight,
  theme,
}: ConsentPromptProps & { request: ConsentRequest; queued: number }) {
  const commands = useCommands()
  const [selected, setSelected, selectedRef] = useKeyState(0)
  const [note, setNote, noteRef] = useKeyState<EditorState | null>(null)
  // One answer per request: keys pressed before the runtime removes it must not answer twice.
  const [decided, setDecided, decidedRef] = useKeyState(false)

  const decide = (choice: ConsentChoice, withNote?: string) => {
    const text = withNote?.trim()
    setDecided(true)
    commands.resolveConsent(request.id, text ? { kind: choice, note: text } : { kind: choice })
  }

  const onNoteKey = (ev: KeyEvent, current: EditorState): boolean => {
    if (ev.has('consent.select')) decide(CONSENT_CHOICES[selectedRef.current] ?? 'once', current.text)
    else if (ev.key.escape || ev.has('consent.note')) setNote(null)
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
    if (ev.has('consent.once')) decide('once')
    else if (ev.has('consent.session')) decide('session')
    else if (ev.has('consent.always')) decide('always')
    else if (ev.has('consent.deny')) decide('deny')
    else if (ev.has('consent.select')) decide(CONSENT_CHOICES[selectedRef.current] ?? 'once')
    else if (ev.has('consent.prev')) setSelected((s) => Math.max(0, s - 1))
    else if (ev.has('consent.next')) setSelected((s) => Math.min(CONSENT_CHOICES.length - 1, s + 1))
    else if (ev.has('consent.note')) setNote(EMPTY_EDITOR)
    // Printable keys must not leak into the input while a decision is pending.
    else return printable
    return true
  })

  const inner = Math.max(10, width - 2)
  const options = CONSENT_CHOICES.map((c) => choiceLabel(c, request.suggestedRule))
  const oneRow = `${options.join('  ')}  Tab add note`
  const horizontal = stringWidth(oneRow) + 2 <= inner
  // border (2) + title + reason + options + note/hint line; the preview gets the rest.
  const fixed = 4 + (horizontal ? 1 : options.length) + 1
  const preview = previewLines(request.preview, inner - 2, Math.max(1, maxHeight - fixed), theme)
  const queue = queued > 1 ? ` · 1 of ${queued}` : ''

  return (
    <Box flexDirection="column" width={width} borderStyle="round" borderColor="yellow" paddingX={0}>
      <Text wrap="truncate">
        <Text bold color="yellow">
          {displayToolName(request.tool)}
        </Text>
        <Text dimColor> ({request.risk})</Text> {request.summary}
        <Text color="yellow">{queue}</Text>
      </Text>
      <Text wrap="truncate" dimColor>
        Why: {request.reason}
      </Text>
      {preview.map((line, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: preview lines are positional
        <Text key={i} wrap="truncate">
          {'  '}
          {line}
        </Text>
      ))}
      {horizontal ? (
        <Text wrap="truncate">
          {options.map((label, i) => (
            <Text key={label} inverse={i === selected} color={i === 3 ? 'red' : undefined}>
              {label}
              {'  '}
            </Text>
          ))}
          <Text dimColor>Tab add note</Text>
        </Text>
      ) : (
        options.map((label, i) => (
          <Text key={label} wrap="truncate" inverse={i === selected} color={i === 3 ? 'red' : undefined}>
            {i === selected ? '❯ ' : '  '}
            {label}
          </Text>
        ))
      )}
      {note ? (
        <Text wrap="truncate">
          <Text color="cyan">Note: </Text>
          <LineField state={note} focused />
          <Text dimColor> (Enter sends with "{choiceLabel(CONSENT_CHOICES[selected] ?? 'once', '…')}")</Text>
        </Text>
      ) : (
        <Text wrap="truncate" dimColor>
          {decided
            ? 'Answer sent…'
            : horizontal
              ? '←/→ choose · Enter pick'
              : '↑/↓ choose · Enter pick · Tab add note'}
        </Text>
      )}
    </Box>
  )
}
