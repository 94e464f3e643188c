import wrapAnsi from 'wrap-ansi'
import { Box } from 'ink'
import { Text } from '../../components/text.js'
import { useMemo } from 'react'
import type { RewindReport, RewindScope, RewindTurn } from '../../../checkpoints/types.js'
import { selectRewindUndo, selectTurns } from '../../../store/selectors.js'
import { useCommands, useDispatch, useStore } from '../../hooks/use-store.js'
import { KEY_PRIORITY, useKeyHandler } from '../../keys/dispatcher.js'
import { useKeyState } from '../../keys/use-key-state.js'
import { useShell } from '../../shell-context.js'
import {
  confirmOptions,
  filesLabel,
  firstLine,
  type ListRow,
  listRows,
  type PlanLine,
  planLines,
  scopeOptions,
} from './rewind-view.js'
import { useTheme } from '../../components/theme-context.js'
import type { Palette } from '../../components/palette.js'

export interface RewindDialogProps {
  width: number
  maxHeight: number
}

type Step =
  | { kind: 'list' }
  | { kind: 'scope'; turn: RewindTurn }
  | { kind: 'busy'; text: string }
  | { kind: 'confirm'; turn?: RewindTurn; scope: RewindScope; plan: RewindReport }
  | { kind: 'error'; text: string }

const tones = (p: Palette): Record<PlanLine['tone'], { color?: string; dimColor?: boolean }> => ({
  plain: {},
  add: { color: p.success },
  remove: { color: p.error },
  warn: { color: p.warn },
  dim: { dimColor: true },
})

/**
 * /rewind (or Esc Esc on an empty prompt): pick a turn, choose code / conversation / both, see exactly
 * what will change (a dry run of the runtime's rewind), confirm. Files changed outside the agent are kept
 * unless the second option overwrites them. The last row undoes the previous rewind.
 */
export function RewindDialog({ width, maxHeight }: RewindDialogProps) {
  const { palette: p } = useTheme()
  const commands = useCommands()
  const dispatch = useDispatch()
  const shell = useShell()
  const marks = useStore(selectTurns)
  const undo = useStore(selectRewindUndo)
  // biome-ignore lint/correctness/useExhaustiveDependencies: the turns are re-read when the marks change
  const turns = useMemo(() => commands.rewindTurns(), [commands, marks])
  const rows = useMemo(() => listRows(turns, undo), [turns, undo])
  const [step, setStep, stepRef] = useKeyState<Step>({ kind: 'list' })
  const [cursor, setCursor, cursorRef] = useKeyState(Math.max(0, turns.length - 1))

  const close = () => dispatch({ type: 'ui/rewind', open: false })
  const fail = (error: unknown) =>
    setStep({ kind: 'error', text: error instanceof Error ? error.message : String(error) })

  const preview = (turn: RewindTurn | undefined, scope: RewindScope) => {
    setStep({ kind: 'busy', text: 'Comparing the workspace with the checkpoint…' })
    const planned = turn
      ? commands.rewind(turn.id, scope, { dryRun: true })
      : commands.undoRewind({ dryRun: true })
    planned.then((plan) => {
      setCursor(0)
      setStep({ kind: 'confirm', ...(turn ? { turn } : {}), scope, plan })
    }, fail)
  }

  const apply = (turn: RewindTurn | undefined, scope: RewindScope, force: boolean) => {
    setStep({ kind: 'busy', text: turn ? 'Rewinding…' : 'Undoing the rewind…' })
    const done = turn ? commands.rewind(turn.id, scope, { force }) : commands.undoRewind({ force })
    done.then(() => {
      close()
      shell.flash(turn ? `Rewound to turn ${turn.number}` : 'Rewind undone')
    }, fail)
  }

  const chooseRow = (row: ListRow | undefined) => {
    if (!row) return
    if (row.kind === 'undo') preview(undefined, 'both')
    else {
      const options = scopeOptions(row.turn)
      setCursor(
        Math.max(
          0,
          options.findIndex((o) => !o.unavailable),
        ),
      )
      setStep({ kind: 'scope', turn: row.turn })
    }
  }

  useKeyHandler(KEY_PRIORITY.dialog, (ev) => {
    const now = stepRef.current
    const at = cursorRef.current
    const count =
      now.kind === 'list'
        ? rows.length
        : now.kind === 'scope'
          ? 3
          : now.kind === 'confirm'
            ? confirmOptions(now.plan).length
            : 0
    if (ev.has('rewind.back')) {
      if (now.kind === 'list' || now.kind === 'error') close()
      else if (now.kind !== 'busy') {
        setStep({ kind: 'list' })
        setCursor(Math.max(0, turns.length - 1))
      }
    } else if (ev.has('rewind.up')) setCursor(Math.max(0, at - 1))
    else if (ev.has('rewind.down')) setCursor(Math.min(Math.max(0, count - 1), at + 1))
    else if (ev.has('rewind.choose') || (/^[1-9]$/.test(ev.input) && Number(ev.input) <= count)) {
      const pick = ev.has('rewind.choose') ? at : Number(ev.input) - 1
      if (now.kind === 'list') chooseRow(rows[pick])
      else if (now.kind === 'scope') {
        const option = scopeOptions(now.turn)[pick]
        if (option && !option.unavailable) preview(now.turn, option.scope)
        else setCursor(pick)
      } else if (now.kind === 'confirm') {
        const option = confirmOptions(now.plan)[pick]
        if (!option || 'back' in option) {
          setStep(now.turn ? { kind: 'scope', turn: now.turn } : { kind: 'list' })
          setCursor(0)
        } else apply(now.turn, now.scope, option.force)
      } else if (now.kind === 'error') close()
    }
    // The dialog owns the keyboard while it is open.
    return true
  })

  const inner = Math.max(10, width - 4)
  const body = renderStep(step, { rows, cursor, inner, rowsAvailable: Math.max(1, maxHeight - 4) }, p)
  return (
    <Box flexDirection="column" width={width} borderStyle="round" borderColor={p.accent} paddingX={1}>
      <Text bold color={p.accent} wrap="truncate">
        {title(step)}
      </Text>
      {body}
      <Text wrap="truncate" dimColor>
        {hint(step)}
      </Text>
    </Box>
  )
}

function title(step: Step): string {
  if (step.kind === 'scope')
    return `Rewind to the start of turn ${step.turn.number} ${firstLine(step.turn.prompt, 50)}`
  if (step.kind === 'confirm')
    return step.turn
      ? `Rewind to turn ${step.turn.number}: what will change`
      : 'Undo the last rewind: what will change'
  return 'Rewind — go back to the start of a turn'
}

function hint(step: Step): string {
  if (step.kind === 'busy') return step.text
  if (step.kind === 'error') return 'Enter or Esc close'
  if (step.kind === 'list') return '↑/↓ choose a turn · Enter select · Esc close'
  return '↑/↓ move · Enter choose · Esc back'
}

function renderStep(
  step: Step,
  view: { rows: ListRow[]; cursor: number; inner: number; rowsAvailable: number },
  p: Palette,
) {
  const { cursor, inner } = view
  // Options wrap under their text, never cut: a reason an option is unavailable can be long.
  const optionLines = (i: number, label: string, unavailable?: string): string[] =>
    wrapAnsi(`${i + 1}. ${label}${unavailable ? ` — ${unavailable}` : ''}`, Math.max(10, inner - 2), {
      hard: true,
    }).split('\n')
  const option = (i: number, label: string, unavailable?: string) =>
    optionLines(i, label, unavailable).map((line, j) => (
      <Text
        // biome-ignore lint/suspicious/noArrayIndexKey: wrapped lines are positional
        key={`${label}-${j}`}
        wrap="truncate"
        color={i === cursor ? p.accent : undefined}
        bold={i === cursor}
        dimColor={!!unavailable}
      >
        {j === 0 && i === cursor ? '❯ ' : '  '}
        {j === 0 ? line : `   ${line}`}
      </Text>
    ))
  if (step.kind === 'busy') return null
  if (step.kind === 'error')
    return (
      <Text color={p.error} wrap="wrap">
        {step.text}
      </Text>
    )
  if (step.kind === 'list') {
    if (view.rows.length === 0) return <Text dimColor>No turns yet: nothing to rewind.</Text>
    // Two lines per turn (prompt, files) when they fit, else one; a window that follows the cursor.
    const perRow = view.rows.length * 2 <= view.rowsAvailable ? 2 : 1
    const fits = Math.max(1, Math.floor(view.rowsAvailable / perRow))
    const top = Math.min(Math.max(0, cursor - fits + 1), Math.max(0, view.rows.length - fits))
    return view.rows.slice(top, top + fits).map((row, k) => {
      const i = top + k
      const active = i === cursor
      const mark = active ? '❯ ' : '  '
      if (row.kind === 'undo')
        return (
          <Text key="undo" wrap="truncate" color={active ? p.accent : p.warn} bold={active}>
            {mark}↶ {row.label}
          </Text>
        )
      const files = filesLabel(row.turn, Math.max(10, inner - 6))
      return (
        <Box key={row.turn.id} flexDirection="column">
          <Text wrap="truncate" color={active ? p.accent : undefined} bold={active}>
            {mark}
            {row.turn.number}. {firstLine(row.turn.prompt, inner)}
            {perRow === 1 ? <Text dimColor> {files}</Text> : null}
          </Text>
          {perRow === 2 ? (
            <Text wrap="truncate" dimColor>
              {'     '}
              {files}
            </Text>
          ) : null}
        </Box>
      )
    })
  }
  if (step.kind === 'scope')
    return scopeOptions(step.turn).flatMap((o, i) => option(i, o.label, o.unavailable))
  const options = confirmOptions(step.plan)
  const optionRows = options.reduce((n, o, i) => n + optionLines(i, o.label).length, 0)
  const lines = planLines(step.plan, inner).slice(0, Math.max(1, view.rowsAvailable - optionRows))
  return (
    <>
      {lines.map((line, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: plan lines are positional
        <Text key={i} wrap="truncate" {...tones(p)[line.tone]}>
          {line.text}
        </Text>
      ))}
      {options.flatMap((o, i) => option(i, o.label))}
    </>
  )
}
