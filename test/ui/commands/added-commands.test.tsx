import { describe, expect, it } from 'vitest'
import { BUILTIN_COMMANDS } from '../../../source/ui/commands/builtin-commands.js'
import { createCommandTable, type SlashCommand } from '../../../source/ui/commands/command-table.js'
import { createTheme } from '../../../source/ui/components/theme.js'
import { TuiRoot } from '../../../source/ui/tui-root.js'
import { fakeCommands, KEYS, makeStore, renderSized, waitFor } from '../shell/helpers.js'

const review: SlashCommand = {
  name: 'review',
  argumentHint: '[path]',
  description: 'Review the changes (project command)',
  source: 'project',
  run: (ctx, args) => ctx.commands.submit({ text: `Review ${args || 'everything'}` }),
}

describe('a command a loader adds at runtime', () => {
  it('shows up in the open completion popup and in /help, and runs; removing it takes it away', async () => {
    const table = createCommandTable(BUILTIN_COMMANDS)
    const store = makeStore()
    const commands = fakeCommands({ store })
    const r = renderSized(
      <TuiRoot
        store={store}
        commands={commands}
        commandTable={table}
        contextLimit={100_000}
        theme={createTheme({ level: 0 })}
        doublePressMs={60_000}
        onExit={() => {}}
      />,
      100,
      30,
    )
    const waitFrame = (text: string) => waitFor(() => r.frame().includes(text), r.frame)
    r.stdin.write('/re')
    await waitFrame('/resume')
    expect(r.frame()).not.toContain('/review')
    const added = table.add([review])
    await waitFrame('[path]  Review the changes (project command)')
    r.stdin.write('v')
    await waitFor(() => !r.frame().includes('/resume'), r.frame)
    r.stdin.write(KEYS.tab)
    await waitFor(() => /❯ \/review\s*$/m.test(r.frame()), r.frame)
    r.stdin.write('src')
    await waitFrame('❯ /review src')
    r.stdin.write(KEYS.enter)
    await waitFor(() => commands.named('submit').length === 1, r.frame)
    expect(commands.named('submit')).toEqual([[{ text: 'Review src' }]])

    r.stdin.write('?')
    await waitFrame('Keys and commands')
    // Page down until the slash commands are in view.
    await waitFor(() => {
      r.stdin.write(KEYS.pageDown)
      return /\/review \[path\]\s+Review the changes/.test(r.frame())
    }, r.frame)
    r.stdin.write('q')
    await waitFor(() => !r.frame().includes('Keys and commands'), r.frame)

    added.remove()
    r.stdin.write('/rev')
    await waitFrame('❯ /rev')
    r.stdin.write(KEYS.enter)
    await waitFrame('Unknown command /rev')
    r.instance.unmount()
  })
})
