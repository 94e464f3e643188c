import { Box } from 'ink'
import { Text } from '../../components/text.js'
import { useRef, useState } from 'react'
import { selectMcpServers } from '../../../store/selectors.js'
import { useCommands, useStore } from '../../hooks/use-store.js'
import { KEY_PRIORITY, useKeyHandler } from '../../keys/dispatcher.js'
import { type PanelLine, panelLines } from './mcp-lines.js'
import { useTheme } from '../../components/theme-context.js'
import type { Palette } from '../../components/palette.js'

export interface McpPanelProps {
  width: number
  height: number
  onClose(): void
}

const styles = (
  p: Palette,
): Record<PanelLine['kind'], { bold?: boolean; color?: string; dimColor?: boolean }> => ({
  title: { bold: true, color: p.accent },
  row: {},
  selected: { bold: true, color: p.accent },
  detail: {},
  error: { color: p.error },
  hint: { dimColor: true },
  blank: {},
})

/**
 * `/mcp`: the servers with their live status, in the transcript's place. ↑/↓ select, `r` restarts the
 * selected server, `a` signs in to it (OAuth), Esc or q closes.
 */
export function McpPanel({ width, height, onClose }: McpPanelProps) {
  const { palette: p } = useTheme()
  const servers = useStore(selectMcpServers)
  const commands = useCommands()
  const [selected, setSelected] = useState(0)
  // Keys can arrive faster than renders: each must see the one before it.
  const current = useRef(0)
  const at = Math.min(selected, Math.max(0, servers.length - 1))

  useKeyHandler(KEY_PRIORITY.overlay, (ev) => {
    const k = ev.key
    const move = (to: number) => {
      current.current = Math.max(0, Math.min(servers.length - 1, to))
      setSelected(current.current)
    }
    const server = servers[Math.min(current.current, servers.length - 1)]
    if (k.escape || ev.input === 'q') onClose()
    else if (k.upArrow || ev.input === 'k') move(current.current - 1)
    else if (k.downArrow || ev.input === 'j') move(current.current + 1)
    else if (ev.input === 'r' && server) commands.reconnectMcpServer(server.name)
    else if (ev.input === 'a' && server) commands.authenticateMcpServer(server.name)
    return true
  })

  const lines = panelLines(servers, at)
  const body = Math.max(1, height - 1)
  return (
    <Box flexDirection="column" width={width} height={height} overflow="hidden">
      {lines.slice(0, body).map((line, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: panel lines are positional
        <Text key={i} wrap="wrap" {...styles(p)[line.kind]}>
          {line.text || ' '}
        </Text>
      ))}
      <Text wrap="truncate" dimColor>
        ↑/↓ select · r restart · a sign in · Esc close
      </Text>
    </Box>
  )
}
