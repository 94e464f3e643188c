import type { McpServerStatus, McpServerView } from '../../../store/domain.js'

/**
 * What `/mcp` shows: one row per server (status, tool count, where it is configured) and the details
 * of the selected one (target, tools, prompts, error, sign-in URL). Pure, so it is table-tested.
 */

export interface PanelLine {
  text: string
  kind: 'title' | 'row' | 'selected' | 'detail' | 'error' | 'hint' | 'blank'
}

const STATUS_LABEL: Record<McpServerStatus, string> = {
  connecting: 'connecting…',
  connected: 'connected',
  failed: 'failed',
  needs_auth: 'needs sign-in',
  'disabled-untrusted': 'not started: untrusted folder',
  disabled: 'off (this session)',
}

export function statusLabel(status: McpServerStatus): string {
  return STATUS_LABEL[status]
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`
}

/** `everything  connected  13 tools · 4 prompts · resources  (.mcp.json)`. */
export function serverRow(server: McpServerView, nameWidth: number): string {
  const facts =
    server.status === 'connected'
      ? [
          plural(server.tools.length, 'tool'),
          server.prompts.length ? plural(server.prompts.length, 'prompt') : '',
          server.resources ? 'resources' : '',
        ]
          .filter(Boolean)
          .join(' · ')
      : ''
  const status = server.installing ? 'installing…' : statusLabel(server.status)
  return [server.name.padEnd(nameWidth), status.padEnd(13), facts, `(${server.source})`]
    .filter(Boolean)
    .join('  ')
}

/** The details of one server. */
export function serverDetails(server: McpServerView): PanelLine[] {
  const out: PanelLine[] = [
    {
      text: `${server.transport === 'stdio' ? 'command' : `${server.transport} URL`}: ${server.target}`,
      kind: 'detail',
    },
  ]
  if (server.installing)
    out.push({
      text: `npm is installing ${server.installing} (its first start downloads it): it gets up to 5 minutes to start`,
      kind: 'hint',
    })
  if (server.error) out.push({ text: `error: ${server.error}`, kind: 'error' })
  if (server.status === 'needs_auth') {
    out.push(
      server.authUrl
        ? { text: `sign in at: ${server.authUrl}`, kind: 'detail' }
        : { text: 'press a to sign in', kind: 'hint' },
    )
  }
  if (server.status === 'disabled-untrusted')
    out.push({ text: 'it comes from this repository: /trust to trust the folder and start it', kind: 'hint' })
  if (server.status === 'disabled')
    out.push({ text: 'turned off for this session: Space turns it on again', kind: 'hint' })
  if (server.tools.length) out.push({ text: `tools: ${server.tools.join(', ')}`, kind: 'detail' })
  if (server.disabledTools?.length)
    out.push({ text: `off in this session: ${server.disabledTools.join(', ')}`, kind: 'hint' })
  if (server.prompts.length)
    out.push({ text: `prompts: ${server.prompts.map((p) => p.usage).join(', ')}`, kind: 'detail' })
  return out
}

/** One server's tools, each on or off for this session; `rows` of them around the selected one. */
export function toolLines(server: McpServerView, selected: number, rows: number): PanelLine[] {
  const lines: PanelLine[] = [
    { text: `${server.name} — tools (Space turns one off or on for this session)`, kind: 'title' },
    { text: '', kind: 'blank' },
  ]
  const room = Math.max(1, rows - lines.length)
  const first = Math.max(0, Math.min(selected - Math.floor(room / 2), server.tools.length - room))
  server.tools.slice(first, first + room).forEach((tool, i) => {
    const at = first + i === selected
    const off = server.disabledTools?.includes(tool) ?? false
    lines.push({
      text: `${at ? '❯ ' : '  '}${off ? '[off]' : '[on] '} ${tool}`,
      kind: at ? 'selected' : 'row',
    })
  })
  return lines
}

export function panelLines(
  servers: readonly McpServerView[],
  selected: number,
  view: { tool: number | null; rows: number } = { tool: null, rows: Number.POSITIVE_INFINITY },
): PanelLine[] {
  const shown = servers[selected]
  if (view.tool !== null && shown) return toolLines(shown, view.tool, view.rows)
  const lines: PanelLine[] = [{ text: 'MCP servers', kind: 'title' }]
  if (servers.length === 0) {
    lines.push(
      { text: '', kind: 'blank' },
      { text: 'No MCP servers are configured.', kind: 'row' },
      {
        text: 'Add them under "mcpServers" in ~/.config/agent-tui/settings.json, or in .mcp.json in the project',
        kind: 'hint',
      },
      {
        text: '(Claude Code\'s format: {"mcpServers": {"name": {"command": "npx", "args": ["…"]}}}),',
        kind: 'hint',
      },
      {
        text: 'or add one for this session: /mcp add <name> <command> [args…] (--url <url> for HTTP).',
        kind: 'hint',
      },
    )
    return lines
  }
  const width = Math.min(24, Math.max(...servers.map((s) => s.name.length)))
  lines.push({ text: '', kind: 'blank' })
  servers.forEach((server, i) => {
    const mark = i === selected ? '❯ ' : '  '
    lines.push({ text: `${mark}${serverRow(server, width)}`, kind: i === selected ? 'selected' : 'row' })
  })
  const current = servers[selected]
  if (current) {
    lines.push({ text: '', kind: 'blank' }, { text: current.name, kind: 'title' })
    lines.push(...serverDetails(current))
  }
  return lines
}
