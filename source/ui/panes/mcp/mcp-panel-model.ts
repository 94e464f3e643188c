import type { McpServerView } from '../../../store/domain.js'

/**
 * The `/mcp` panel's keys as a pure state machine: the server list (↑/↓, Space off/on, Enter its tools,
 * `r` restart, `a` sign in, `x` twice remove, Esc close) and one server's tools (↑/↓, Space off/on, Esc
 * back). What a key asks of the session comes out as an effect the panel hands to the runtime commands.
 */

export interface McpPanelState {
  /** The selected server. */
  server: number
  /** The selected tool while the server's tools are shown; null on the server list. */
  tool: number | null
  /** `x` was pressed on this server: `x` again removes it. */
  confirmRemove: string | null
}

export const PANEL_START: McpPanelState = { server: 0, tool: null, confirmRemove: null }

/** What a key means in the panel (the `mcp.*` bindings of ui/keys/bindings.ts). */
export type PanelKey = 'up' | 'down' | 'toggle' | 'tools' | 'restart' | 'signIn' | 'remove' | 'back' | 'other'

export type PanelEffect =
  | { kind: 'close' }
  | { kind: 'reconnect'; server: string }
  | { kind: 'authenticate'; server: string }
  | { kind: 'toggle'; server: string; enabled: boolean; tool?: string }
  | { kind: 'remove'; server: string }

const clamp = (n: number, max: number) => Math.max(0, Math.min(max, n))

export function panelKey(
  state: McpPanelState,
  key: PanelKey,
  servers: readonly McpServerView[],
): { state: McpPanelState; effect?: PanelEffect } {
  const at = clamp(state.server, servers.length - 1)
  const server = servers[at]
  const up = key === 'up'
  const down = key === 'down'
  if (state.tool !== null && server) {
    const tools = server.tools
    const tool = clamp(state.tool, tools.length - 1)
    if (key === 'back') return { state: { ...state, tool: null } }
    if (up) return { state: { ...state, tool: clamp(tool - 1, tools.length - 1) } }
    if (down) return { state: { ...state, tool: clamp(tool + 1, tools.length - 1) } }
    const name = tools[tool]
    if (key === 'toggle' && name) {
      const off = server.disabledTools?.includes(name) ?? false
      return {
        state: { ...state, tool },
        effect: { kind: 'toggle', server: server.name, enabled: off, tool: name },
      }
    }
    return { state }
  }
  const base = { ...state, server: at, tool: null, confirmRemove: null }
  if (key === 'back' && state.confirmRemove) return { state: base }
  if (key === 'back') return { state: base, effect: { kind: 'close' } }
  if (up) return { state: { ...base, server: clamp(at - 1, servers.length - 1) } }
  if (down) return { state: { ...base, server: clamp(at + 1, servers.length - 1) } }
  if (!server) return { state: base }
  if (key === 'tools' && server.tools.length > 0) return { state: { ...base, tool: 0 } }
  if (key === 'toggle')
    return {
      state: base,
      effect: { kind: 'toggle', server: server.name, enabled: server.status === 'disabled' },
    }
  if (key === 'restart') return { state: base, effect: { kind: 'reconnect', server: server.name } }
  if (key === 'signIn') return { state: base, effect: { kind: 'authenticate', server: server.name } }
  if (key === 'remove') {
    if (state.confirmRemove === server.name)
      return { state: base, effect: { kind: 'remove', server: server.name } }
    return { state: { ...base, confirmRemove: server.name } }
  }
  return { state: base }
}

/** The footer: the keys of the view the panel shows. */
export function panelHint(state: McpPanelState, server: McpServerView | undefined): string {
  if (state.tool !== null) return '↑↓ select · Space on/off · Esc back'
  if (state.confirmRemove) return `x again removes "${state.confirmRemove}" from this session · Esc keeps it`
  const tools = server?.tools.length ? ' · Enter tools' : ''
  return `↑↓ · Space on/off${tools} · r restart · a sign in · x remove · Esc close`
}
