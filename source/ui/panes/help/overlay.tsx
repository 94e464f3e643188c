import { Box } from 'ink'
import { Text } from '../../components/text.js'
import { useContext, useEffect, useMemo, useState } from 'react'
import stringWidth from 'string-width'
import wrapAnsi from 'wrap-ansi'
import type { State } from '../../../store/state.js'
import { StoreContext } from '../../hooks/use-store.js'
import { type Bindings, helpSections } from '../../keys/bindings.js'
import { KEY_PRIORITY, useBindings, useKeyHandler } from '../../keys/dispatcher.js'
import type { Overlay } from '../../shell-context.js'
import { commandUsage, type SlashCommand } from '../../commands/command-table.js'
import { keyColumnWidth, layoutEntry } from './help-layout.js'
import { useCommandList } from '../../commands/use-command-table.js'
import { useTheme } from '../../components/theme-context.js'

interface Line {
  text: string
  kind: 'title' | 'section' | 'row' | 'blank' | 'entry'
  /** An entry's two columns (help-layout.ts lays them out for the width). */
  key?: string
  description?: string
}

/**
 * The `?` help text, generated from the bindings table and the slash command table. Availability is judged
 * on `state` (the store's state when the overlay opened).
 */
export function helpLines(
  bindings: Bindings,
  commands: readonly SlashCommand[],
  state: State,
  /** Vim mode's keys, while it is on: a section after the prompt's own keys. */
  vim?: VimHelp,
): Line[] {
  const sections = helpSections(bindings).filter((s) => s.rows.length > 0)
  const input = sections.findIndex((s) => s.title === 'Input')
  if (vim) sections.splice(input + 1, 0, { title: vim.title, rows: [...vim.rows] })
  const usages = commands.map(commandUsage)
  const entry = (key: string, description: string): Line => ({ text: '', kind: 'entry', key, description })
  const lines: Line[] = [{ text: vim?.heading ?? 'Keys and commands', kind: 'title' }]
  for (const section of sections) {
    lines.push({ text: '', kind: 'blank' }, { text: section.title, kind: 'section' })
    for (const r of section.rows) lines.push(entry(r.keys, r.description))
  }
  lines.push({ text: '', kind: 'blank' }, { text: 'Slash commands', kind: 'section' })
  commands.forEach((c, i) => {
    lines.push(
      entry(usages[i] ?? '', `${c.description}${c.unavailable?.(state) ? ' (not available yet)' : ''}`),
    )
  })
  lines.push(
    { text: '', kind: 'blank' },
    {
      text: 'Input: @path mentions a file · !cmd runs a shell command · paste or type an image path to attach it',
      kind: 'row',
    },
  )
  return lines
}

/** Lines as rows of at most `width` columns: entries in two columns (one key column for the whole overlay). */
export function overlayRows(lines: readonly Line[], width: number): Line[] {
  const keyWidth = keyColumnWidth(
    lines.flatMap((l) => (l.kind === 'entry' ? [l.key ?? ''] : [])),
    width,
  )
  return lines.flatMap((line) => {
    const texts =
      line.kind === 'entry'
        ? layoutEntry(line.key ?? '', line.description ?? '', keyWidth, width)
        : line.kind === 'row'
          ? wrapOverlayLine(line.text, width)
          : [line.text]
    return texts.map((text): Line => ({ text, kind: line.kind === 'entry' ? 'row' : line.kind }))
  })
}

/**
 * One overlay line as rows of at most `width` columns, wrapped at word boundaries. A line laid out as
 * columns ("Allow            Edit(**)  this session", a key and its description) continues under its
 * second column; other lines under their own indentation.
 */
export function wrapOverlayLine(text: string, width: number): string[] {
  if (stringWidth(text) <= width) return [text]
  const column = /^(\s*\S+(?: \S+)*\s{2,})\S/.exec(text)?.[1]?.length ?? 0
  const indent = column > 0 && column <= width / 2 ? column : (/^\s*/.exec(text)?.[0].length ?? 0)
  const rows = wrapAnsi(text.slice(indent), Math.max(1, width - indent), { hard: true }).split('\n')
  return rows.map((row, i) => (i === 0 ? text.slice(0, indent) : ' '.repeat(indent)) + row)
}

type VimHelp = { heading: string; title: string; rows: readonly { keys: string; description: string }[] }

/** Vim mode's keys, from its own module (already loaded with vim mode on): a render after the overlay opens. */
function useVimHelp(wanted: boolean): VimHelp | null {
  const [help, setHelp] = useState<VimHelp | null>(null)
  useEffect(() => {
    if (!wanted) return
    let live = true
    import('../input/vim/vim-keys.js').then(
      (m) => live && setHelp({ heading: m.VIM_HELP_HEADING, title: m.VIM_HELP_TITLE, rows: m.VIM_HELP }),
      (err: unknown) =>
        live &&
        setHelp({
          heading: 'Keys and commands',
          title: 'Vim mode',
          rows: [{ keys: '', description: `its keys could not be loaded: ${String(err)}` }],
        }),
    )
    return () => {
      live = false
    }
  }, [wanted])
  return wanted ? help : null
}

export interface OverlayViewProps {
  overlay: Exclude<Overlay, { kind: 'sessions' } | { kind: 'mcp' } | { kind: 'models' }>
  width: number
  height: number
  onClose(): void
}

/**
 * Help, info (/cost, /context) and confirm (/compact) overlays, drawn in the transcript's place so the
 * frame keeps its height. PgUp/PgDn/↑/↓ scroll; a confirm overlay takes Enter (do it) or Esc (cancel)
 * and ignores other keys; the others close on any other key.
 */
export function OverlayView({ overlay, width, height, onClose }: OverlayViewProps) {
  const { palette: p } = useTheme()
  const bindings = useBindings()
  const commands = useCommandList()
  const store = useContext(StoreContext)
  if (!store) throw new Error('StoreContext is missing: render the overlay inside <TuiRoot>')
  const [top, setTop] = useState(0)
  const vim = useVimHelp(overlay.kind === 'help' && store.getState().ui.editorMode === 'vim')
  const lines = useMemo<Line[]>(
    () =>
      overlay.kind === 'help'
        ? helpLines(bindings, commands, store.getState(), vim ?? undefined)
        : [
            { text: overlay.title, kind: 'title' },
            { text: '', kind: 'blank' },
            ...overlay.lines.map((text): Line => ({ text, kind: 'row' })),
          ],
    [overlay, bindings, commands, store, vim],
  )
  // Wrapped to the overlay's width, so nothing is cut by a narrow terminal or the side column.
  const rows = useMemo<Line[]>(() => overlayRows(lines, width), [lines, width])
  const body = Math.max(1, height - 1)
  const maxTop = Math.max(0, rows.length - body)
  const start = Math.min(top, maxTop)

  useKeyHandler(KEY_PRIORITY.overlay, (ev) => {
    const k = ev.key
    if (k.pageUp || k.upArrow) setTop(Math.max(0, start - (k.pageUp ? body : 1)))
    else if (k.pageDown || k.downArrow) setTop(Math.min(maxTop, start + (k.pageDown ? body : 1)))
    else if (overlay.kind !== 'confirm') onClose()
    else if (k.return) {
      onClose()
      overlay.onConfirm()
    } else if (k.escape) {
      onClose()
      overlay.onCancel()
    }
    return true
  })

  return (
    <Box flexDirection="column" width={width} height={height} overflow="hidden">
      {rows.slice(start, start + body).map((line, i) => {
        const style = { bold: line.kind !== 'row', color: line.kind === 'title' ? p.accent : undefined }
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: overlay lines are positional
          <Text key={i} wrap="truncate" {...style}>
            {line.text || ' '}
          </Text>
        )
      })}
      <Text wrap="truncate" dimColor={overlay.kind !== 'confirm'} bold={overlay.kind === 'confirm'}>
        {maxTop > 0 ? 'PgUp/PgDn scroll · ' : ''}
        {overlay.kind === 'confirm' ? `Enter: ${overlay.action} · Esc: cancel` : 'any other key closes'}
      </Text>
    </Box>
  )
}
