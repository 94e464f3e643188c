import { Box } from 'ink'
import { Text } from '../../components/text.js'
import type { TrustRequest } from '../../../store/domain.js'
import { useCommands } from '../../hooks/use-store.js'
import { KEY_PRIORITY, useKeyHandler } from '../../keys/dispatcher.js'
import { useKeyState } from '../../keys/use-key-state.js'
import { trustIntro, trustListLines, trustOptions } from './trust-lines.js'
import { useTheme } from '../../components/theme-context.js'

export interface TrustDialogProps {
  request: TrustRequest
  width: number
  /** Rows the dialog may use; the list of what the folder brings shrinks to fit. */
  maxHeight: number
}

/**
 * "Do you trust this folder?", docked above the input. It lists what the repository brings that only
 * applies once trusted; the session runs untrusted meanwhile. ↑/↓ and Enter, or the choice's number;
 * Esc decides later. Printable keys never reach the prompt while it is open.
 */
export function TrustDialog({ request, width, maxHeight }: TrustDialogProps) {
  const { palette: p } = useTheme()
  const commands = useCommands()
  const options = trustOptions(request)
  const [selected, setSelected, selectedRef] = useKeyState(0)
  const [sent, setSent, sentRef] = useKeyState(false)

  useKeyHandler(KEY_PRIORITY.dialog, (ev) => {
    const printable = ev.input !== '' && !ev.key.ctrl && !ev.key.meta && !ev.key.pageUp && !ev.key.pageDown
    if (sentRef.current) return printable || ev.key.escape || ev.key.return
    const pick = (index: number) => {
      const option = options[index]
      if (!option) return
      setSent(true)
      commands.resolveTrust(request.id, option.choice)
    }
    if (ev.has('trust.choose')) pick(selectedRef.current)
    else if (ev.has('trust.later')) pick(options.length - 1)
    else if (ev.has('trust.up')) setSelected((s) => Math.max(0, s - 1))
    else if (ev.has('trust.down')) setSelected((s) => Math.min(options.length - 1, s + 1))
    else if (/^[1-9]$/.test(ev.input) && Number(ev.input) <= options.length) pick(Number(ev.input) - 1)
    else return printable
    return true
  })

  // border (2) + title + intro + note + options + hint; the list gets the rest.
  const fixed = 2 + 3 + options.length + 1
  // Border and padding (4) and the list's indent (2): its lines are wrapped to what is left.
  const list = trustListLines(request.groups, Math.max(1, maxHeight - fixed), Math.max(10, width - 6))
  return (
    <Box flexDirection="column" width={width} borderStyle="round" borderColor={p.warn} paddingX={1}>
      <Text bold color={p.warn} wrap="truncate">
        Do you trust {request.folder}?
      </Text>
      <Text wrap="truncate">{trustIntro(request)}</Text>
      {list.map((line, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: list lines are positional
        <Text key={i} wrap="truncate" dimColor={!line.startsWith(' ')}>
          {'  '}
          {line}
        </Text>
      ))}
      <Text wrap="truncate" dimColor>
        Only trust folders you know: they can allow commands and start programs.
      </Text>
      {options.map((option, i) => (
        <Text
          key={option.choice}
          wrap="truncate"
          color={i === selected ? p.accent : undefined}
          bold={i === selected}
        >
          {i === selected ? '❯ ' : '  '}
          {i + 1}. {option.label}
        </Text>
      ))}
      <Text wrap="truncate" dimColor>
        {sent
          ? 'Answer sent…'
          : `↑/↓ choose · Enter or 1–${options.length} pick · Esc ${request.current === 'undecided' ? 'decide later' : 'keep as is'}`}
      </Text>
    </Box>
  )
}
