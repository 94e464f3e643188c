import { Box } from 'ink'
import { Text } from '../../components/text.js'
import type { Question, QuestionAnswer, QuestionRequest } from '../../../store/domain.js'
import { useCommands } from '../../hooks/use-store.js'
import { KEY_PRIORITY, useKeyHandler } from '../../keys/dispatcher.js'
import { useKeyState } from '../../keys/use-key-state.js'
import { EMPTY_EDITOR, type EditorState } from '../input/editor-state.js'
import { editLineField, LineField } from '../input/line-field.js'
import { DESCRIPTION_INDENT, layoutQuestion } from './question-lines.js'
import { useTheme } from '../../components/theme-context.js'

type QuestionsRequest = Extract<QuestionRequest, { kind: 'questions' }>

export interface QuestionDialogProps {
  request: QuestionsRequest
  width: number
  maxHeight: number
}

interface Draft {
  cursor: number
  picked: ReadonlySet<number>
  other: EditorState
}

const freshDraft = (): Draft => ({ cursor: 0, picked: new Set(), other: EMPTY_EDITOR })

/** The answer text for one question: chosen labels joined with ", ", plus the typed "Other" text. */
export function answerFor(question: Question, draft: Draft): string | null {
  const labels = question.options.filter((_, i) => draft.picked.has(i)).map((o) => o.label)
  const other = draft.other.text.trim()
  if (question.multiSelect) {
    const all = other ? [...labels, other] : labels
    return all.length ? all.join(', ') : null
  }
  if (draft.cursor === question.options.length) return other || null
  return question.options[draft.cursor]?.label ?? null
}

/**
 * AskUserQuestion: one question at a time (headers as tabs), ↑/↓ to move, Space to toggle in
 * multi-select, Enter to choose; the last row is "Other" with free text. Esc cancels the whole request.
 */
export function QuestionDialog({ request, width, maxHeight }: QuestionDialogProps) {
  const { palette: p } = useTheme()
  const commands = useCommands()
  const [index, setIndex, indexRef] = useKeyState(0)
  const [drafts, setDrafts, draftsRef] = useKeyState<Draft[]>(() => request.questions.map(freshDraft))
  const [, setAnswers, answersRef] = useKeyState<Record<string, string>>({})
  const [hint, setHint] = useKeyState('')
  const [done, setDone, doneRef] = useKeyState(false)
  const question = request.questions[index]
  const draft = drafts[index] ?? freshDraft()

  const send = (answer: QuestionAnswer) => {
    setDone(true)
    commands.answerQuestion(request.id, answer)
  }

  useKeyHandler(KEY_PRIORITY.dialog, (ev) => {
    const at = indexRef.current
    const q = request.questions[at]
    const d = draftsRef.current[at] ?? freshDraft()
    if (!q || doneRef.current) return ev.input !== '' && !ev.key.ctrl
    const update = (next: Partial<Draft>) => {
      setDrafts((all) => all.map((x, i) => (i === at ? { ...x, ...next } : x)))
      setHint('')
    }
    const rows = q.options.length + 1
    const onOther = d.cursor === q.options.length
    if (ev.has('question.cancel')) send({ kind: 'cancelled' })
    else if (ev.has('question.up')) update({ cursor: Math.max(0, d.cursor - 1) })
    else if (ev.has('question.down')) update({ cursor: Math.min(rows - 1, d.cursor + 1) })
    else if (ev.has('question.choose')) {
      const answer = answerFor(q, d)
      if (answer === null) {
        setHint(onOther ? 'Type your answer first' : 'Pick at least one option (Space)')
        return true
      }
      const all = { ...answersRef.current, [q.question]: answer }
      setAnswers(all)
      if (at + 1 < request.questions.length) setIndex(at + 1)
      else send({ kind: 'questions', answers: all })
    } else if (onOther) {
      // On the "Other" row typing goes to the free-text field (Space included).
      const next = editLineField(d.other, ev)
      if (!next) return ev.input !== '' && !ev.key.ctrl
      update({ other: next })
    } else if (ev.has('question.toggle') && q.multiSelect) {
      const picked = new Set(d.picked)
      if (picked.has(d.cursor)) picked.delete(d.cursor)
      else picked.add(d.cursor)
      update({ picked })
    } else if (/^[1-9]$/.test(ev.input) && Number(ev.input) <= rows) {
      update({ cursor: Number(ev.input) - 1 })
    } else return ev.input !== '' && !ev.key.ctrl && !ev.key.pageUp && !ev.key.pageDown
    return true
  })

  if (!question) return null
  const layout = layoutQuestion(question, width, maxHeight)
  return (
    <Box flexDirection="column" width={width} borderStyle="round" borderColor={p.accent}>
      <Text wrap="truncate">
        {request.questions.map((q, i) => (
          <Text key={q.question} inverse={i === index} color={i < index ? p.success : undefined}>
            {` ${q.header} `}
          </Text>
        ))}
        {request.questions.length > 1 ? (
          <Text dimColor>{`  ${index + 1} of ${request.questions.length}`}</Text>
        ) : null}
      </Text>
      {layout.question.map((line, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: wrapped lines are positional
        <Text key={i} bold wrap="truncate">
          {line}
        </Text>
      ))}
      {question.options.map((option, i) => {
        const active = i === draft.cursor
        const mark = question.multiSelect ? (draft.picked.has(i) ? '[x] ' : '[ ] ') : ''
        return (
          <Box key={option.label} flexDirection="column">
            <Text wrap="truncate" color={active ? p.accent : undefined} bold={active}>
              {active ? '❯ ' : '  '}
              {i + 1}. {mark}
              {option.label}
            </Text>
            {(layout.descriptions[i] ?? []).map((line, j) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: wrapped lines are positional
              <Text key={j} wrap="truncate" dimColor>
                {' '.repeat(DESCRIPTION_INDENT)}
                {line}
              </Text>
            ))}
          </Box>
        )
      })}
      <Text wrap="truncate" color={draft.cursor === question.options.length ? p.accent : undefined}>
        {draft.cursor === question.options.length ? '❯ ' : '  '}
        {question.options.length + 1}. Other:{' '}
        <LineField
          state={draft.other}
          focused={draft.cursor === question.options.length}
          placeholder="type your own answer"
        />
      </Text>
      <Text wrap="truncate" color={hint ? p.warn : p.muted}>
        {done
          ? 'Answer sent…'
          : hint ||
            (question.multiSelect
              ? '↑/↓ move · Space toggle · Enter confirm · Esc cancel'
              : '↑/↓ move · Enter choose · Esc cancel')}
      </Text>
    </Box>
  )
}
