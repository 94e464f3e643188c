import { describe, expect, it } from 'vitest'
import type { Store } from '../../../source/store/create-store.js'
import type { Mode } from '../../../source/store/domain.js'
import { BUILTIN_COMMANDS, INIT_PROMPT } from '../../../source/ui/commands/builtin-commands.js'
import type { CommandContext, FlashLevel } from '../../../source/ui/commands/command-context.js'
import {
  argumentCompletions,
  commandUsage,
  createCommandTable,
  parseSlash,
  promptOfLine,
  runCommandLine,
  type SlashCommand,
} from '../../../source/ui/commands/command-table.js'
import { slashCompleter } from '../../../source/ui/panes/input/completion.js'
import { type FakeCommands, fakeCommands, makeStore } from '../shell/fake-commands.js'
import type { ModelList } from '../../../source/agent/runtime/commands.js'

/** A recording CommandContext over a real store and recording runtime commands: no renderer. */
function fakeContext(opts: { mode?: Mode; store?: Store; models?: ModelList } = {}) {
  const store = opts.store ?? makeStore([], opts.mode)
  const commands: FakeCommands = fakeCommands({ store, ...(opts.models ? { models: opts.models } : {}) })
  const flashes: Array<{ text: string; level: FlashLevel }> = []
  const ui: string[] = []
  const ctx: CommandContext = {
    commands,
    getState: store.getState,
    contextLimit: 100_000,
    flash: (text, level = 'info') => flashes.push({ text, level }),
    showHelp: () => ui.push('help'),
    showInfo: (title) => ui.push(`info:${title}`),
    showConfirm: (confirm) => ui.push(`confirm:${confirm.title}`),
    showMcp: () => ui.push('mcp'),
    showSessions: () => ui.push('sessions'),
    showModels: (models, current) => ui.push(`models:${models.join(',')}:${current}`),
    resumeSession: (id) => ui.push(`resume:${id}`),
    openSetup: () => ui.push('setup'),
    toggleTodos: () => ui.push('todos'),
    setEditorMode: (mode) => store.dispatch({ type: 'ui/editor-mode', mode }),
    focusTasks: () => ui.push('tasks'),
    openRewind: () => ui.push('rewind'),
    attachImage: (image) => ui.push(`image:${image.path}`),
    exit: (code) => ui.push(`exit:${code}`),
  }
  return { ctx, store, commands, flashes, ui, lastFlash: () => flashes.at(-1) }
}

const builtin = () => createCommandTable(BUILTIN_COMMANDS)

describe('parseSlash', () => {
  it.each<[string, { name: string; args: string } | null]>([
    ['/mode auto', { name: 'mode', args: 'auto' }],
    ['  /help ', { name: 'help', args: '' }],
    ['/memory add two words', { name: 'memory', args: 'add two words' }],
    ['/mcp__github__review 12', { name: 'mcp__github__review', args: '12' }],
    ['/usr/bin/env is broken', null],
    ['hello /mode', null],
    ['//escaped', null],
    // A plugin's command (docs/plugins.md).
    ['/commit-commands:commit now', { name: 'commit-commands:commit', args: 'now' }],
    ['/my.plugin_2:review-pr 12', { name: 'my.plugin_2:review-pr', args: '12' }],
    ['/a:b:c', null],
    ['/Upper:x', null],
  ])('%j → %j', (text, parsed) => {
    expect(parseSlash(text)).toEqual(parsed)
  })
})

describe('/status', () => {
  it('starts with the endpoint and its extra headers, redacted as the runtime gives them', async () => {
    const f = fakeContext()
    f.commands.endpointHeaders = () => ['x-portkey-api-key: pk…ef (24 characters) (--header)']
    const lines: string[][] = []
    f.ctx.showInfo = (title, body) => lines.push([title, ...body])
    await runCommandLine(builtin(), '/status', f.ctx)
    const [title, ...body] = lines[0] ?? []
    expect(title).toBe('Status')
    expect(body[0]).toMatch(/^Endpoint\s/)
    expect(body[1]).toMatch(/^Headers\s+x-portkey-api-key: pk…ef \(24 characters\) \(--header\)$/)
  })
})

describe('/plugin', () => {
  it('lists, enables and disables (for new sessions), and says how when the words are wrong', async () => {
    const f = fakeContext()
    const lines: string[][] = []
    f.ctx.showInfo = (title, body) => lines.push([title, ...body])
    await runCommandLine(builtin(), '/plugin', f.ctx)
    await runCommandLine(builtin(), '/plugin enable ralph-loop', f.ctx)
    await runCommandLine(builtin(), '/plugins disable ralph-loop', f.ctx)
    expect(lines).toEqual([
      ['Plugins'],
      ['Plugins', 'enabled ralph-loop'],
      ['Plugins', 'disabled ralph-loop'],
    ])
    await runCommandLine(builtin(), '/plugin remove ralph-loop', f.ctx)
    expect(f.lastFlash()).toEqual({
      text: 'usage: /plugin, /plugin enable <name>, /plugin disable <name>',
      level: 'warn',
    })
  })
})

describe('/vim', () => {
  it('toggles vim mode, saves each change, and takes on/off', async () => {
    const f = fakeContext()
    await runCommandLine(builtin(), '/vim', f.ctx)
    expect(f.store.getState().ui.editorMode).toBe('vim')
    expect(f.lastFlash()?.text).toMatch(/^Vim mode on: Esc for normal mode.*\(saved in /)
    await runCommandLine(builtin(), '/vim', f.ctx)
    expect(f.store.getState().ui.editorMode).toBe('normal')
    await runCommandLine(builtin(), '/vim on', f.ctx)
    await runCommandLine(builtin(), '/vim on', f.ctx)
    expect(f.store.getState().ui.editorMode).toBe('vim')
    await runCommandLine(builtin(), '/vim off', f.ctx)
    expect(f.store.getState().ui.editorMode).toBe('normal')
    expect(f.commands.named('saveEditorMode')).toEqual([['vim'], ['normal'], ['vim'], ['vim'], ['normal']])
  })

  it('says how when the word is wrong, and changes nothing', async () => {
    const f = fakeContext()
    await runCommandLine(builtin(), '/vim emacs', f.ctx)
    expect(f.lastFlash()).toEqual({ text: 'Usage: /vim [on|off] (no argument toggles it)', level: 'warn' })
    expect(f.store.getState().ui.editorMode).toBe('normal')
    expect(f.commands.named('saveEditorMode')).toEqual([])
  })

  it('completes on and off', () => {
    const complete = slashCompleter(builtin(), makeStore().getState)
    expect(complete('/vim ').map((c) => c.value)).toEqual(['/vim on', '/vim off'])
  })
})

describe('the built-in table', () => {
  it('covers the documented list (docs/tui.md#slash-commands), with aliases, in one entry each', () => {
    const table = builtin()
    const names = table.list().map((c) => c.name)
    for (const n of ['help', 'plan', 'mode', 'model', 'image', 'compact', 'clear', 'context', 'cost']) {
      expect(names).toContain(n)
    }
    for (const n of [
      'tasks',
      'todos',
      'permissions',
      'mcp',
      'agents',
      'resume',
      'init',
      'memory',
      'export',
      'quit',
    ])
      expect(names).toContain(n)
    expect(new Set(names).size).toBe(names.length)
    expect(table.find('bashes')?.name).toBe('tasks')
    expect(table.find('EXIT')?.name).toBe('quit')
    expect(table.find('nope')).toBeUndefined()
  })

  it('completes by prefix while the name is typed', () => {
    const table = builtin()
    expect(table.complete('/c').map((c) => c.name)).toEqual(['compact', 'clear', 'context', 'cost', 'copy'])
    expect(table.complete('/ba').map((c) => c.name)).toEqual(['tasks'])
    expect(table.complete('/mode ')).toEqual([])
    expect(table.complete('/').length).toBe(table.list().length)
  })

  it('completion and /help read the same entries', () => {
    const { store } = fakeContext()
    const items = slashCompleter(builtin(), store.getState)('/im')
    expect(items).toEqual([
      {
        kind: 'slash',
        label: '/image',
        detail: '<path> [question]  Attach an image (and ask about it)',
        value: 'image',
        runsOnEnter: false,
        isDir: false,
      },
    ])
    const tasks = slashCompleter(builtin(), store.getState)('/task')[0]
    expect(tasks).toMatchObject({ label: '/tasks (/bashes)', runsOnEnter: true })
    expect(slashCompleter(builtin(), store.getState)('/compact')[0]?.detail).toBe(
      '[focus]  Summarise older history now (shows what it keeps first)',
    )
    expect(commandUsage(builtin().find('image') as SlashCommand)).toBe('/image <path> [question]')
  })
})

describe('dispatch', () => {
  it.each<[string, string, FlashLevel]>([
    ['/frobnicate now', 'Unknown command /frobnicate — type / to list commands', 'warn'],
    [
      '/compact',
      'Nothing to compact — nothing to summarise yet: only 0 messages so far; the recent ones are always kept',
      'info',
    ],
    ['/plan maybe', 'Usage: /plan [on|off]', 'warn'],
    ['/mode', 'Mode is SAFE — /mode safe|auto|plan', 'info'],
    ['/mode turbo', 'Unknown mode "turbo" — use one of safe, auto, plan', 'warn'],
    ['/model', 'Model: test-model — the endpoint lists no models; /model <id> switches', 'warn'],
    ['/image', 'Usage: /image <path> [question]', 'warn'],
    ['/tasks', 'No background tasks', 'info'],
    ['/memory forget it', 'Usage: /memory (list files) or /memory add <text>', 'warn'],
    ['/resume', 'No other sessions in this directory', 'info'],
    ['/rename', 'Usage: /rename <title>', 'warn'],
    ['/rename  the auth work ', 'Session renamed to "the auth work"', 'info'],
  ])('%s says %j', async (line, text, level) => {
    const f = fakeContext()
    await runCommandLine(builtin(), line, f.ctx)
    expect(f.flashes).toEqual([{ text, level }])
  })

  it.each<[string, string[], Array<[string, unknown[]]>]>([
    ['/help', ['help'], []],
    ['/context', ['info:Context'], [['contextReport', []]]],
    ['/compact the parser', [], [['compactionPreview', ['the parser']]]],
    ['/pin', ['info:Pinned'], []],
    ['/cost', ['info:Cost'], []],
    ['/todos', ['todos'], []],
    ['/quit', ['exit:0'], []],
    ['/exit', ['exit:0'], []],
    ['/permissions', ['info:Permissions'], [['permissionRules', []]]],
    ['/clear', [], [['clear', []]]],
    ['/trust', [], [['reviewTrust', []]]],
    ['/model gpt-x', [], [['setModel', ['gpt-x']]]],
    ['/mode auto', [], [['setMode', ['auto']]]],
    ['/plan', [], [['setMode', ['plan']]]],
    ['/init', [], [['submit', [{ text: INIT_PROMPT }]]]],
    ['/memory add tests need docker', [], [['addMemory', ['tests need docker']]]],
    ['/rename auth work', [], [['renameSession', ['auth work']]]],
    ['/fork 2', ['resume:fork-1'], [['forkSession', [2]]]],
    ['/fork', ['resume:fork-1'], [['forkSession', [undefined]]]],
    ['/image shot.png', ['image:shot.png'], [['loadImage', ['shot.png']]]],
    ['/login', ['setup'], []],
    ['/endpoint', ['setup'], []],
  ])('%s runs against the context', async (line, ui, calls) => {
    const f = fakeContext()
    await runCommandLine(builtin(), line, f.ctx)
    expect(f.ui).toEqual(ui)
    expect(f.commands.calls.map((c) => [c.name, c.args])).toEqual(calls)
  })

  it('/login waits for the turn to end; /doctor shows the checks, or says where to run them', async () => {
    const busy = fakeContext()
    busy.store.dispatch({ type: 'phase/changed', phase: 'streaming' })
    await runCommandLine(builtin(), '/login', busy.ctx)
    expect(busy.ui).toEqual([])
    expect(busy.lastFlash()).toEqual({
      text: 'The agent is working: press Esc to interrupt it, then /login',
      level: 'warn',
    })
    const none = fakeContext()
    await runCommandLine(builtin(), '/doctor', none.ctx)
    expect(none.lastFlash()?.text).toMatch(/agent-tui doctor in a shell/)
    const f = fakeContext()
    f.ctx.doctor = async () => ['✓ Node  24']
    await runCommandLine(builtin(), '/doctor', f.ctx)
    expect(f.ui).toEqual(['info:Doctor'])
  })

  it("/model opens a picker of the endpoint's models, or says why it cannot list them", async () => {
    const listed = fakeContext({ models: { models: ['a-model', 'test-model'] } })
    await runCommandLine(builtin(), '/model', listed.ctx)
    expect(listed.ui).toEqual(['models:a-model,test-model:test-model'])
    expect(listed.commands.named('setModel')).toEqual([])
    const failed = fakeContext({ models: { models: [], error: 'HTTP 401 (check the API key)' } })
    await runCommandLine(builtin(), '/model', failed.ctx)
    expect(failed.lastFlash()).toEqual({
      text: 'Model: test-model — the endpoint lists no models (HTTP 401 (check the API key)); /model <id> switches',
      level: 'warn',
    })
  })

  it('/image warns when the model cannot see images (the image will not be sent)', async () => {
    const store = makeStore()
    const f = fakeContext({ store })
    f.ctx.commands = fakeCommands({ store, vision: false })
    await runCommandLine(builtin(), '/image shot.png', f.ctx)
    expect(f.lastFlash()).toEqual({
      text: 'test-model cannot see images (no vision in its profile): the image will not be sent, only your text. /model picks another model.',
      level: 'warn',
    })
  })

  it('refuses dangerous and ci without asking the runtime, naming the launch flag', async () => {
    const f = fakeContext()
    await runCommandLine(builtin(), '/mode dangerous', f.ctx)
    await runCommandLine(builtin(), '/mode CI', f.ctx)
    expect(f.commands.named('setMode')).toEqual([])
    expect(f.flashes.map((x) => x.text)).toEqual([
      'dangerous mode can only be chosen when starting agent-tui (--dangerously-skip-permissions)',
      'ci mode can only be chosen when starting agent-tui (-p or --mode ci)',
    ])
    expect(f.store.getState().mode).toBe('safe')
  })

  it('a session launched in dangerous mode may return to it with /mode', async () => {
    const f = fakeContext({ mode: 'dangerous' })
    await runCommandLine(builtin(), '/plan', f.ctx)
    await runCommandLine(builtin(), '/mode', f.ctx)
    await runCommandLine(builtin(), '/mode dangerous', f.ctx)
    expect(f.commands.named('setMode')).toEqual([['plan'], ['dangerous']])
    expect(f.flashes.map((x) => x.text)).toEqual([
      'Plan mode on: read-only until you approve a plan',
      'Mode is PLAN — /mode safe|auto|plan|dangerous',
      'Mode set to DANGEROUS',
    ])
  })

  it('a failing command becomes an error message, never an exception', async () => {
    const f = fakeContext()
    f.commands.exportTranscript = async () => {
      throw new Error('disk full')
    }
    await runCommandLine(builtin(), '/export out.md', f.ctx)
    expect(f.lastFlash()).toEqual({ text: '/export failed: disk full', level: 'error' })
  })
})

describe('entries added at runtime', () => {
  const review: SlashCommand = {
    name: 'review',
    argumentHint: '[path]',
    description: 'Review the changes (project)',
    source: 'project',
    run: (ctx, args) => ctx.commands.submit({ text: `Review ${args || 'everything'}` }),
  }

  it('are listed, completed, dispatched and removed again', async () => {
    const table = builtin()
    const seen: number[] = []
    table.subscribe(() => seen.push(table.list().length))
    const added = table.add([review])
    expect(added.skipped).toEqual([])
    expect(table.list().at(-1)).toBe(review)
    expect(table.complete('/rev').map((c) => c.name)).toEqual(['review'])
    const f = fakeContext()
    await runCommandLine(table, '/review src', f.ctx)
    expect(f.commands.named('submit')).toEqual([[{ text: 'Review src' }]])
    added.remove()
    added.remove()
    expect(table.find('review')).toBeUndefined()
    expect(seen).toEqual([BUILTIN_COMMANDS.length + 1, BUILTIN_COMMANDS.length])
  })

  it("a plugin's namespaced name completes past its colon, and offers its argument completions", () => {
    const table = builtin()
    const namespaced: SlashCommand = {
      ...review,
      name: 'pr-tools.v2:review',
      aliases: ['review'],
      completeArguments: (typed) => [{ value: `src${typed}` }],
    }
    table.add([namespaced])
    for (const typed of ['/pr', '/pr-tools.v2', '/pr-tools.v2:', '/pr-tools.v2:rev', '/PR-TOOLS.V2:Review'])
      expect(
        table.complete(typed).map((c) => c.name),
        typed,
      ).toEqual(['pr-tools.v2:review'])
    expect(table.complete('/pr-tools.v2:x')).toEqual([])
    const args = argumentCompletions(table, '/pr-tools.v2:review /a', makeStore().getState())
    expect(args?.command).toBe(namespaced)
    expect(args?.candidates.map((c) => c.value)).toEqual(['src/a'])
  })

  it("a bare name two plugins share names both plugins' commands, in the TUI and headless", async () => {
    const table = builtin()
    table.add([
      { ...review, name: 'commit-commands:commit' },
      { ...review, name: 'git-tools:commit' },
    ])
    const f = fakeContext()
    await runCommandLine(table, '/commit now', f.ctx)
    const both = '/commit is a command of more than one plugin: /commit-commands:commit, /git-tools:commit'
    expect(f.lastFlash()).toEqual({ text: both, level: 'warn' })
    expect(await promptOfLine(table, '/commit now', makeStore().getState())).toEqual({
      ok: false,
      message: both,
    })
    await runCommandLine(table, '/nothing', f.ctx)
    expect(f.lastFlash()?.text).toBe('Unknown command /nothing — type / to list commands')
  })

  it('never take a name or alias that is already in the table', () => {
    const table = builtin()
    const clash: SlashCommand = { ...review, name: 'clear', aliases: [] }
    const aliasClash: SlashCommand = { ...review, name: 'wipe', aliases: ['exit'] }
    const added = table.add([clash, aliasClash, review])
    expect(added.skipped.map((s) => [s.command.name, s.clash])).toEqual([
      ['clear', 'clear'],
      ['wipe', 'exit'],
    ])
    expect(table.find('clear')?.description).toBe('Start a fresh conversation')
    expect(table.find('review')).toBe(review)
  })

  it('an availability predicate is judged on the current state', async () => {
    const table = createCommandTable([
      {
        name: 'rewind',
        description: 'Go back to a checkpoint',
        unavailable: (state) => (state.transcript.order.length === 0 ? 'nothing to rewind yet' : null),
        run: (ctx) => ctx.flash('rewound'),
      },
    ])
    const f = fakeContext()
    await runCommandLine(table, '/rewind', f.ctx)
    expect(f.lastFlash()?.text).toBe('not available yet: /rewind — nothing to rewind yet')
    f.store.dispatch({ type: 'user/submitted', id: 'u1', content: 'hi', text: 'hi' })
    await runCommandLine(table, '/rewind', f.ctx)
    expect(f.lastFlash()?.text).toBe('rewound')
  })

  it('argument candidates complete the text after the name', () => {
    const table = createCommandTable([
      {
        name: 'agents',
        argumentHint: '[name]',
        description: 'Pick an agent',
        completeArguments: (partial) =>
          ['reviewer', 'researcher', 'tester']
            .filter((n) => n.startsWith(partial))
            .map((value) => ({ value, detail: `the ${value}` })),
        run: () => {},
      },
    ])
    const complete = slashCompleter(table, makeStore().getState)
    expect(complete('/agents re').map((i) => [i.kind, i.label, i.value, i.detail])).toEqual([
      ['argument', 'reviewer', '/agents reviewer', 'the reviewer'],
      ['argument', 'researcher', '/agents researcher', 'the researcher'],
    ])
    expect(complete('/agents x')).toEqual([])
    expect(complete('/clear ')).toEqual([])
  })
})
