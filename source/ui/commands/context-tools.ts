import type { ToolsReport } from '../../agent/runtime/commands.js'

/**
 * `/context`'s tool lines (docs/context.md#tools-on-demand): which definitions every request carries, which
 * wait behind ToolSearch, which a mask leaves out — with their bytes, MCP tools grouped by server.
 */

const INDENT = '  '
const LABEL = 11

export function toolsReportLines(t: ToolsReport): string[] {
  const total = (list: ReadonlyArray<{ bytes: number }>) => list.reduce((n, e) => n + e.bytes, 0)
  const head = [
    `${t.sent.length} sent (${kb(total(t.sent))})`,
    ...(t.deferred.length
      ? [`${t.deferred.length} on demand (${kb(total(t.deferred))}) behind ToolSearch`]
      : []),
    ...(t.masked.length ? [`${t.masked.length} left out`] : []),
  ].join(' · ')
  const lines = [
    `Tools${' '.repeat(8)}${head}${t.fixed ? '' : ' (as the first request would send them)'}`,
    `${INDENT}${'sent'.padEnd(LABEL)}${grouped(t.sent).join(' · ')}`,
  ]
  if (t.deferred.length)
    lines.push(
      `${INDENT}${'on demand'.padEnd(LABEL)}${grouped(t.deferred).join(' · ')}`,
      `${INDENT}${''.padEnd(LABEL)}beyond the core, the definitions would take more than ${kb(t.budgetBytes)} (10% of the window); "deferTools": "never" in settings sends them all`,
    )
  for (const m of t.masked) lines.push(`${INDENT}${'left out'.padEnd(LABEL)}${m.name}: ${m.reason}`)
  return lines
}

/** Built-ins by name; an MCP server's tools as one entry (`mcp__notion__* 20 tools`). */
function grouped(list: ReadonlyArray<{ name: string; bytes: number }>): string[] {
  const out: Array<{ label: string; count: number; bytes: number }> = []
  for (const { name, bytes } of list) {
    const server = /^(mcp__.+?__)/.exec(name)?.[1]
    const label = server ? `${server}*` : name
    const entry = server ? out.find((e) => e.label === label) : undefined
    if (entry) {
      entry.count++
      entry.bytes += bytes
    } else out.push({ label, count: 1, bytes })
  }
  return out.map((e) =>
    e.label.endsWith('*')
      ? `${e.label} ${e.count} tool${e.count === 1 ? '' : 's'} ${kb(e.bytes)}`
      : `${e.label} ${kb(e.bytes)}`,
  )
}

function kb(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} kB`
}
