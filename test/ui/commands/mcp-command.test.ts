import { describe, expect, it } from 'vitest'
import { BUILTIN_COMMANDS } from '../../../source/ui/commands/builtin-commands.js'
import type { CommandContext, FlashLevel } from '../../../source/ui/commands/command-context.js'
import {
  argumentCompletions,
  createCommandTable,
  runCommandLine,
} from '../../../source/ui/commands/command-table.js'
import { MCP_USAGE, type McpArgs, parseMcpArgs, splitWords } from '../../../source/ui/commands/mcp-command.js'
import { fakeCommands, makeStore } from '../shell/fake-commands.js'

describe('parseMcpArgs', () => {
  const cases: Array<[string, McpArgs]> = [
    ['', { kind: 'panel' }],
    ['disable t', { kind: 'toggle', server: 't', enabled: false }],
    ['enable t echo', { kind: 'toggle', server: 't', tool: 'echo', enabled: true }],
    ['disable t mcp__t__echo', { kind: 'toggle', server: 't', tool: 'mcp__t__echo', enabled: false }],
    ['disable', { kind: 'usage', message: MCP_USAGE }],
    ['disable t echo more', { kind: 'usage', message: MCP_USAGE }],
    ['remove t', { kind: 'remove', name: 't' }],
    ['rm t', { kind: 'remove', name: 't' }],
    [
      'add fs npx -y @modelcontextprotocol/server-filesystem@2025.8.21 /tmp',
      {
        kind: 'add',
        name: 'fs',
        server: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem@2025.8.21', '/tmp'] },
        save: false,
      },
    ],
    // Flags after the command are the command's own.
    [
      'add --save t node server.js --save',
      { kind: 'add', name: 't', server: { command: 'node', args: ['server.js', '--save'] }, save: true },
    ],
    [
      'add t "my server" \'a b\'',
      { kind: 'add', name: 't', server: { command: 'my server', args: ['a b'] }, save: false },
    ],
    [
      'add docs --url https://mcp.example.com/mcp',
      {
        kind: 'add',
        name: 'docs',
        server: { type: 'http', url: 'https://mcp.example.com/mcp' },
        save: false,
      },
    ],
    [
      'add docs --save --url=http://127.0.0.1:3000/mcp',
      { kind: 'add', name: 'docs', server: { type: 'http', url: 'http://127.0.0.1:3000/mcp' }, save: true },
    ],
    ['add docs --url', { kind: 'usage', message: "/mcp add: --url needs the server's URL" }],
    [
      'add docs --url file:///etc/passwd',
      { kind: 'usage', message: '/mcp add: "file:///etc/passwd" is not an http(s) URL' },
    ],
    [
      'add docs --url https://x.test/mcp node s.js',
      { kind: 'usage', message: '/mcp add: give a command or --url, not both' },
    ],
    ['add docs', { kind: 'usage', message: MCP_USAGE }],
    ['add', { kind: 'usage', message: MCP_USAGE }],
    ['restart t', { kind: 'usage', message: MCP_USAGE }],
  ]
  it.each(cases)('/mcp %s', (args, expected) => {
    expect(parseMcpArgs(args)).toEqual(expected)
  })

  it.each([
    ['a b', ['a', 'b']],
    ['"a b" c', ['a b', 'c']],
    ['--x="a b"', ['--x=a b']],
    ['"say \\"hi\\""', ['say "hi"']],
  ])('splitWords %s', (text, words) => {
    expect(splitWords(text)).toEqual(words)
  })
})

describe('/mcp through the command table', () => {
  function fixture() {
    const store = makeStore()
    const flashes: Array<{ text: string; level: FlashLevel }> = []
    const opened: string[] = []
    const commands = fakeCommands({ store })
    const ignore = () => {}
    const ctx: CommandContext = {
      commands,
      getState: store.getState,
      contextLimit: 100_000,
      flash: (text, level = 'info') => flashes.push({ text, level }),
      showHelp: ignore,
      showInfo: ignore,
      showConfirm: ignore,
      showMcp: () => opened.push('mcp'),
      setEditorMode: ignore,
      showSessions: ignore,
      showModels: ignore,
      resumeSession: ignore,
      openSetup: ignore,
      toggleTodos: ignore,
      focusTasks: ignore,
      openRewind: ignore,
      attachImage: ignore,
      exit: ignore,
    }
    const table = createCommandTable(BUILTIN_COMMANDS)
    return {
      store,
      flashes,
      opened,
      commands,
      run: (line: string) => runCommandLine(table, line, ctx),
      table,
    }
  }

  it('opens the panel, or sends the change to the runtime and shows its answer', async () => {
    const f = fixture()
    await f.run('/mcp')
    expect(f.opened).toEqual(['mcp'])
    await f.run('/mcp disable t echo')
    await f.run('/mcp add n node s.js')
    await f.run('/mcp remove n')
    expect(f.commands.named('setMcpEnabled')).toEqual([['t', false, 'echo']])
    expect(f.commands.named('addMcpServer')).toEqual([['n', { command: 'node', args: ['s.js'] }, false]])
    expect(f.commands.named('removeMcpServer')).toEqual([['n']])
    expect(f.flashes.map((x) => x.text)).toEqual(['echo turned off', 'added n', 'removed n'])
    await f.run('/mcp frobnicate')
    expect(f.flashes.at(-1)).toEqual({ text: MCP_USAGE, level: 'warn' })
  })

  it('completes the verbs, then the servers', () => {
    const f = fixture()
    f.store.dispatch({
      type: 'mcp/servers',
      servers: [
        {
          name: 'docs',
          source: 's',
          transport: 'stdio',
          target: 'x',
          status: 'connected',
          tools: [],
          resources: false,
          prompts: [],
        },
      ],
    })
    const verbs = argumentCompletions(f.table, '/mcp d', f.store.getState())?.candidates.map((c) => c.value)
    expect(verbs).toEqual(['disable'])
    const servers = argumentCompletions(f.table, '/mcp disable d', f.store.getState())?.candidates
    expect(servers).toEqual([{ value: 'disable docs', detail: 'connected' }])
  })
})
