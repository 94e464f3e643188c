import { Box } from 'ink'
import { Text } from '../../components/text.js'
import { useMemo } from 'react'
import type { QuestionAnswer, QuestionRequest } from '../../../store/domain.js'
import { renderMarkdown } from '../../components/markdown.js'
import type { Theme } from '../../components/theme.js'
import { useCommands } from '../../hooks/use-store.js'
import { KEY_PRIORITY, useKeyHandler } from '../../keys/dispatcher.js'
import { useKeyState } from '../../keys/use-key-state.js'
import { EMPTY_EDITOR } from '../input/editor-state.js'
import { editLineField, LineField } from '../input/line-field.js'
import { useTheme } from '../../components/theme-context.js'

type PlanRequest = Extract<QuestionRequest, { kind: 'plan' }>
type PlanDecision = Extract<QuestionAnswer, { kind: 'plan' }>['decision']

export const PLAN_OPTIONS: ReadonlyArray<{ decision: PlanDecision; label: string }> = [
  { decision: 'approve-auto', label: 'Approve and switch to AUTO (edits run without asking)' },
  { decision: 'approve-safe', label: 'Approve and switch to SAFE (each edit and command asks first)' },
  { decision: 'keep-planning', label: 'Keep planning (stay in PLAN)' },
]

export interface PlanDialogProps {
  request: PlanRequest
  width: number
  maxHeight: number
  theme: Theme
}

/**
 * ExitPlanMode approval: the plan as Markdown (PgUp/PgDn scroll it when it does not fit), three
 * options, and a feedback line that typing fills; Enter sends the highlighted option with the feedback.
 */
export function PlanDialog({ request, width, maxHeight, theme }: PlanDialogProps) {
  const { palette: p } = useTheme()
  const commands = useCommands()
  const [selected, setSelected, selectedRef] = useKeyState(0)
  const [feedback, setFeedback, feedbackRef] = useKeyState(EMPTY_EDITOR)
  const [scroll, setScroll, scrollRef] = useKeyState(0)
  const [sent, setSent, sentRef] = useKeyState(false)
  const inner = Math.max(10, width - 4)
  const lines = useMemo(() => renderMarkdown(request.plan, inner, theme), [request.plan, inner, theme])
  // border (2) + title + options + feedback + hint
  const planRows = Math.max(1, maxHeight - (2 + 1 + PLAN_OPTIONS.length + 2))
  const maxScroll = Math.max(0, lines.length - planRows)
  const top = Math.min(scroll, maxScroll)

  useKeyHandler(KEY_PRIORITY.dialog, (ev) => {
    if (sentRef.current) return ev.input !== '' && !ev.key.ctrl
    const send = (decision: PlanDecision, text = '') => {
      setSent(true)
      commands.answerQuestion(request.id, { kind: 'plan', decision, ...(text ? { feedback: text } : {}) })
    }
    const at = Math.min(scrollRef.current, maxScroll)
    if (ev.has('plan.choose')) {
      send(PLAN_OPTIONS[selectedRef.current]?.decision ?? 'keep-planning', feedbackRef.current.text.trim())
    } else if (ev.has('plan.up')) setSelected((s) => Math.max(0, s - 1))
    else if (ev.has('plan.down')) setSelected((s) => Math.min(PLAN_OPTIONS.length - 1, s + 1))
    else if (ev.has('plan.scrollUp') && maxScroll > 0) setScroll(Math.max(0, at - planRows))
    else if (ev.has('plan.scrollDown') && maxScroll > 0) setScroll(Math.min(maxScroll, at + planRows))
    // Esc keeps planning: the safest reading of "not now".
    else if (ev.key.escape) send('keep-planning', feedbackRef.current.text.trim())
    else {
      const next = editLineField(feedbackRef.current, ev)
      if (!next) return false
      setFeedback(next)
    }
    return true
  })

  const visible = lines.slice(top, top + planRows)
  return (
    <Box flexDirection="column" width={width} borderStyle="round" borderColor={p.accent} paddingX={1}>
      <Text bold color={p.accent} wrap="truncate">
        Plan ready for approval
        {maxScroll > 0 ? (
          <Text dimColor>
            {' '}
            (lines {top + 1}–{top + visible.length} of {lines.length}, PgUp/PgDn)
          </Text>
        ) : null}
      </Text>
      {visible.map((line, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: plan lines are positional
        <Text key={i} wrap="truncate" styled>
          {line || ' '}
        </Text>
      ))}
      {PLAN_OPTIONS.map((option, i) => (
        <Text
          key={option.decision}
          wrap="truncate"
          color={i === selected ? p.accent : undefined}
          bold={i === selected}
        >
          {i === selected ? '❯ ' : '  '}
          {i + 1}. {option.label}
        </Text>
      ))}
      <Text wrap="truncate">
        <Text color={p.accent}>Feedback: </Text>
        <LineField state={feedback} focused placeholder="optional — what to change (sent with your choice)" />
      </Text>
      <Text wrap="truncate" dimColor>
        {sent ? 'Answer sent…' : '↑/↓ choose · Enter send · Esc keep planning'}
      </Text>
    </Box>
  )
}
