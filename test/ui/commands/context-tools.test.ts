import { describe, expect, it } from 'vitest'
import { toolsReportLines } from '../../../source/ui/commands/context-tools.js'

describe("/context's tool lines", () => {
  it('sent, on demand grouped by server, and left out with why', () => {
    const lines = toolsReportLines({
      sent: [
        { name: 'Bash', bytes: 3000 },
        { name: 'Read', bytes: 900 },
        { name: 'ToolSearch', bytes: 2600 },
        { name: 'CallTool', bytes: 500 },
      ],
      deferred: [
        { name: 'NotebookEdit', bytes: 700 },
        { name: 'mcp__notion__search', bytes: 3000 },
        { name: 'mcp__notion__create_page', bytes: 4000 },
      ],
      masked: [{ name: 'WebFetch', reason: 'denied by the rule WebFetch in --disallowed-tools' }],
      step: 1,
      budgetBytes: 13_107,
      catalogForm: 'names',
      fixed: true,
    })
    expect(lines).toEqual([
      'Tools        4 sent (6.8 kB) · 3 on demand (7.5 kB) behind ToolSearch · 1 left out',
      '  sent       Bash 2.9 kB · Read 900 B · ToolSearch 2.5 kB · CallTool 500 B',
      '  on demand  NotebookEdit 700 B · mcp__notion__* 2 tools 6.8 kB',
      '             beyond the core, the definitions would take more than 12.8 kB (10% of the window); "deferTools": "never" in settings sends them all',
      '  left out   WebFetch: denied by the rule WebFetch in --disallowed-tools',
    ])
  })

  it('before the first request: what it would send; nothing deferred, no on-demand line', () => {
    const lines = toolsReportLines({
      sent: [{ name: 'Read', bytes: 900 }],
      deferred: [],
      masked: [],
      step: 0,
      budgetBytes: 13_107,
      fixed: false,
    })
    expect(lines).toEqual([
      'Tools        1 sent (900 B) (as the first request would send them)',
      '  sent       Read 900 B',
    ])
  })
})
