import { Box } from 'ink'
import { Text } from '../../components/text.js'
import { useRef, useState } from 'react'
import { selectMcpServers } from '../../../store/selectors.js'
import { useCommands, useStore } from '../../hooks/use-store.js'
import { KEY_PRIORITY, useKeyHandler } from '../../keys/dispatcher.js'
import { type PanelLine, panelLines } from './mcp-lines.js'
import { useTheme } from '../../components/theme-context.js'
import type { Palette } from '../../components/palette.js'
import type { CommandName } from '../../keys/bindings.js'
import {
  type McpPanelState,
  PANEL_START,
  type PanelEffect,
  type PanelKey,
  panelHint,
  panelKey,
} from './mcp-panel-model.js'

const PANEL_KEYS: ReadonlyArray<readonly [CommandName, PanelKey]> = [
  ['mcp.up', 'up'],
  ['mcp.down', 'down'],
  ['mcp.toggle', 'toggle'],
  ['mcp.tools', 'tools'],
  ['mcp.restart', 'restart'],
  ['mcp.signIn', 'signIn'],
  ['mcp.remove', 'remove'],
  ['mcp.back', 'back'],
]

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
 * `/mcp`: the servers with their live status, in the transcript's place; keys in mcp-panel-model.ts.
 * A change (off/on, remove) goes to the runtime commands; their answer shows on the panel's last line.
 */
export function McpPanel({ width, height, onClose }: McpPanelProps) {
  const { palette: p } = useTheme()
  const servers = useStore(selectMcpServers)
  const commands = useCommands()
  const [state, setState] = useState<McpPanelState>(PANEL_START)
  const [note, setNote] = useState<{ text: string; error: boolean } | null>(null)
  // Keys can arrive faster than renders: each must see the one before it.
  const current = useRef(PANEL_START)

  const run = (effect: PanelEffect) => {
    if (effect.kind === 'close') return onClose()
    if (effect.kind === 'reconnect') return commands.reconnectMcpServer(effect.server)
    if (effect.kind === 'authenticate') return commands.authenticateMcpServer(effect.server)
    const done =
      effect.kind === 'toggle'
        ? commands.setMcpEnabled(effect.server, effect.enabled, effect.tool)
        : commands.removeMcpServer(effect.server)
    done.then(
      (text) => setNote({ text, error: false }),
      (error: unknown) => setNote({ text: (error as Error).message, error: true }),
    )
  }

  useKeyHandler(KEY_PRIORITY.overlay, (ev) => {
    const key = PANEL_KEYS.find(([command]) => ev.has(command))?.[1] ?? 'other'
    const next = panelKey(current.current, key, servers)
    current.current = next.state
    setState(next.state)
    if (next.effect) run(next.effect)
    return true
  })

  const at = Math.min(state.server, Math.max(0, servers.length - 1))
  const body = Math.max(1, height - (note ? 2 : 1))
  const lines = panelLines(servers, at, { tool: state.tool, rows: body })
  return (
    <Box flexDirection="column" width={width} height={height} overflow="hidden">
      {lines.slice(0, body).map((line, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: panel lines are positional
        <Text key={i} wrap="wrap" {...styles(p)[line.kind]}>
          {line.text || ' '}
        </Text>
      ))}
      {note ? (
        <Text wrap="truncate" {...(note.error ? { color: 'red' } : { color: 'green' })}>
          {note.text}
        </Text>
      ) : null}
      <Text wrap="truncate" dimColor>
        {panelHint(state, servers[at])}
      </Text>
    </Box>
  )
}
