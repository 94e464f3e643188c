import { describe, expect, it } from 'vitest'
import type { McpServerView } from '../../../source/store/domain.js'
import { toolLines } from '../../../source/ui/panes/mcp/mcp-lines.js'
import {
  type McpPanelState,
  PANEL_START,
  type PanelEffect,
  type PanelKey,
  panelHint,
  panelKey,
} from '../../../source/ui/panes/mcp/mcp-panel-model.js'

const view = (name: string, over: Partial<McpServerView> = {}): McpServerView => ({
  name,
  source: 'settings',
  transport: 'stdio',
  target: 'node s.js',
  status: 'connected',
  tools: [`mcp__${name}__echo`, `mcp__${name}__note`],
  resources: false,
  prompts: [],
  ...over,
})
const SERVERS = [view('a'), view('b', { status: 'disabled', tools: [] })]

describe('the /mcp panel keys', () => {
  const cases: Array<[string, McpPanelState, PanelKey, McpPanelState, PanelEffect | undefined]> = [
    ['↓ selects the next server', PANEL_START, 'down', { ...PANEL_START, server: 1 }, undefined],
    [
      'j too, and it stops at the last',
      { ...PANEL_START, server: 1 },
      'down',
      { ...PANEL_START, server: 1 },
      undefined,
    ],
    [
      'Space turns a running server off',
      PANEL_START,
      'toggle',
      PANEL_START,
      { kind: 'toggle', server: 'a', enabled: false },
    ],
    [
      'Space turns an off server on',
      { ...PANEL_START, server: 1 },
      'toggle',
      { ...PANEL_START, server: 1 },
      { kind: 'toggle', server: 'b', enabled: true },
    ],
    ['Enter opens the tools', PANEL_START, 'tools', { ...PANEL_START, tool: 0 }, undefined],
    [
      'a server without tools has none to open',
      { ...PANEL_START, server: 1 },
      'tools',
      { ...PANEL_START, server: 1 },
      undefined,
    ],
    ['↓ in the tools', { ...PANEL_START, tool: 0 }, 'down', { ...PANEL_START, tool: 1 }, undefined],
    [
      'Space turns a tool off',
      { ...PANEL_START, tool: 1 },
      'toggle',
      { ...PANEL_START, tool: 1 },
      { kind: 'toggle', server: 'a', enabled: false, tool: 'mcp__a__note' },
    ],
    ['Esc goes back to the servers', { ...PANEL_START, tool: 1 }, 'back', PANEL_START, undefined],
    ['r restarts', PANEL_START, 'restart', PANEL_START, { kind: 'reconnect', server: 'a' }],
    ['a signs in', PANEL_START, 'signIn', PANEL_START, { kind: 'authenticate', server: 'a' }],
    ['x asks', PANEL_START, 'remove', { ...PANEL_START, confirmRemove: 'a' }, undefined],
    [
      'x again removes',
      { ...PANEL_START, confirmRemove: 'a' },
      'remove',
      PANEL_START,
      { kind: 'remove', server: 'a' },
    ],
    [
      'Esc after x keeps it (and the panel open)',
      { ...PANEL_START, confirmRemove: 'a' },
      'back',
      PANEL_START,
      undefined,
    ],
    [
      'another key after x forgets it',
      { ...PANEL_START, confirmRemove: 'a' },
      'down',
      { ...PANEL_START, server: 1 },
      undefined,
    ],
    ['Esc closes', PANEL_START, 'back', PANEL_START, { kind: 'close' }],
  ]
  it.each(cases)('%s', (_name, state, k, next, effect) => {
    const out = panelKey(state, k, SERVERS)
    expect(out.state).toEqual(next)
    expect(out.effect).toEqual(effect)
  })

  it('a tool already off is turned on', () => {
    const servers = [view('a', { disabledTools: ['mcp__a__echo'] })]
    expect(panelKey({ ...PANEL_START, tool: 0 }, 'toggle', servers).effect).toEqual({
      kind: 'toggle',
      server: 'a',
      enabled: true,
      tool: 'mcp__a__echo',
    })
  })

  it('with no servers only Esc does anything', () => {
    expect(panelKey(PANEL_START, 'toggle', []).effect).toBeUndefined()
    expect(panelKey(PANEL_START, 'remove', []).state.confirmRemove).toBeNull()
  })

  it('the hints fit 80 columns and name the keys of the view', () => {
    const hints = [
      panelHint(PANEL_START, SERVERS[0]),
      panelHint({ ...PANEL_START, tool: 0 }, SERVERS[0]),
      panelHint({ ...PANEL_START, confirmRemove: 'a' }, SERVERS[0]),
    ]
    for (const hint of hints) expect(hint.length).toBeLessThanOrEqual(78)
    expect(hints[0]).toContain('Space on/off')
    expect(hints[0]).toContain('Enter tools')
    expect(hints[1]).toContain('Esc back')
  })

  it('tool lines mark what is off and keep the selected one in view', () => {
    const many = view('a', {
      tools: Array.from({ length: 30 }, (_, i) => `mcp__a__t${i}`),
      disabledTools: ['mcp__a__t20'],
    })
    const lines = toolLines(many, 20, 8).map((l) => l.text)
    expect(lines).toHaveLength(8)
    expect(lines).toContain('❯ [off] mcp__a__t20')
    expect(lines).toContain('  [on]  mcp__a__t19')
  })
})
