import { describe, expect, it } from 'vitest'
import {
  createDiscovery,
  instructionEntries,
  placesEntries,
  sessionDiscovery,
  settingsEntries,
} from '../../../source/app/session/discovery.ts'
import type { ProjectTrust } from '../../../source/config/project-trust.ts'
import { statusLines } from '../../../source/ui/commands/info-lines.ts'
import type { SettingsSource } from '../../../source/config/load.ts'

describe('/status: what was loaded from where', () => {
  it('settings files: what each gives, what waits for trust, what is ignored and why; missing ones not listed', () => {
    const sources: SettingsSource[] = [
      {
        scope: 'user',
        path: '/h/.claude.json',
        label: '~/.claude.json',
        exists: false,
        settings: {},
        claudeCode: { ignored: [] },
      },
      {
        scope: 'project',
        path: '/w/.claude/settings.json',
        label: '.claude/settings.json',
        exists: true,
        settings: {
          permissions: { deny: ['Bash(sudo *)'] },
          hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [] }] },
        },
        claudeCode: { ignored: ['statusLine (agent-tui has no status-line command)'] },
      },
      {
        scope: 'local',
        path: '/w/.claude/settings.local.json',
        label: '.claude/settings.local.json',
        exists: true,
        settings: {},
        claudeCode: { ignored: [], unreadable: 'invalid JSON at 1:3: …' },
      },
    ]
    const entries = settingsEntries(sources, [
      { kind: 'hook', file: '.claude/settings.json', label: 'PreToolUse hook (Bash)' } as never,
    ])
    expect(entries).toEqual([
      { what: '.claude/settings.json', note: 'rules: 1 deny; 1 hook group' },
      { what: '  .claude/settings.json', note: 'waits for trust: PreToolUse hook (Bash)', skipped: true },
      {
        what: '  .claude/settings.json',
        note: 'ignored: statusLine (agent-tui has no status-line command)',
        skipped: true,
      },
      { what: '.claude/settings.local.json', note: 'not read: invalid JSON at 1:3: …', skipped: true },
    ])
  })

  it('a rule waits for trust only while the folder is untrusted', () => {
    const local: SettingsSource = {
      scope: 'local',
      path: '/w/.claude/settings.local.json',
      label: '.claude/settings.local.json',
      exists: true,
      settings: { permissions: { allow: ['Bash(touch *)'] } },
      claudeCode: { ignored: [] },
    }
    const held = { kind: 'rule', file: local.label, label: 'Bash(touch *)' } as never
    let trusted = false
    const trust = {
      isTrusted: () => trusted,
      settings: (t = trusted) => ({ loaded: { sources: [local] }, ignored: t ? [] : [held] }),
    } as unknown as ProjectTrust
    const discovery = sessionDiscovery({
      config: { sources: [local], claudeDirsOffBy: undefined },
      claude: null,
      store: { getState: () => ({ mcp: { servers: [] } }) } as never,
      home: '/h',
      workspace: '/w',
      trust,
    })
    const notes = () =>
      discovery
        .report()
        .sections.find((s) => s.title === 'Settings files')
        ?.entries.map((e) => e.note)
    expect(notes()).toContain('waits for trust: Bash(touch *)')
    trusted = true
    expect(notes()).toEqual(['rules: 1 allow'])
  })

  it('instructions: each file with its size and importer; what was left out and why (a missing root file is not)', () => {
    const root = { path: '/w/CLAUDE.md', label: 'CLAUDE.md', read: {} as never, imports: true }
    const entries = instructionEntries({
      sections: [
        { root, path: '/w/CLAUDE.md', label: 'CLAUDE.md', text: 'abc', truncated: false },
        {
          root,
          path: '/w/a.md',
          label: 'a.md',
          text: 'x'.repeat(1200),
          truncated: true,
          importedBy: 'CLAUDE.md',
        },
      ],
      skipped: [
        { label: 'AGENTS.md', reason: 'missing', why: 'no such file' },
        { label: '.env', reason: 'refused', why: 'it is a secrets file', importedBy: 'CLAUDE.md' },
      ],
    })
    expect(entries).toEqual([
      { what: 'CLAUDE.md', note: '3 characters' },
      { what: 'a.md', note: '1,200 characters (cut), imported by CLAUDE.md' },
      { what: '.env', note: 'imported by CLAUDE.md: left out: it is a secrets file', skipped: true },
    ])
  })

  it('the report: topics in a fixed order, empty ones left out; live topics read when asked', () => {
    let servers = [] as Array<{
      name: string
      source: string
      transport: string
      target: string
      status: string
    }>
    const discovery = createDiscovery({ mcp: () => servers as never })
    discovery.set('commands', [{ what: '.claude/commands/', note: '3 commands' }])
    discovery.set(
      'places',
      placesEntries({ on: false, offBy: '--no-claude-dirs', userDir: '', projectDir: '' }),
    )
    expect(discovery.report().sections.map((s) => s.title)).toEqual(["Claude Code's places", 'Commands'])
    servers = [
      { name: 'notes', source: '~/.claude.json', transport: 'stdio', target: 'node x', status: 'connected' },
    ]
    discovery.add('nested', { what: 'src/CLAUDE.md', note: '10 characters' })
    const lines = statusLines(discovery.report())
    expect(lines).toEqual([
      "Claude Code's places:",
      '  – off  --no-claude-dirs',
      '',
      'CLAUDE.md files read later (as messages):',
      '  ✓ src/CLAUDE.md  10 characters',
      '',
      'Commands:',
      '  ✓ .claude/commands/  3 commands',
      '',
      'MCP servers:',
      '  ✓ notes (~/.claude.json)  stdio node x: connected',
    ])
  })
})
