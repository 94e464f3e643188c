import stringWidth from 'string-width'
import { describe, expect, it } from 'vitest'
import { createTheme } from '../../../source/ui/components/theme.js'
import { keyColumnWidth, layoutEntry } from '../../../source/ui/panes/help/help-layout.js'
import { VIM_HELP, VIM_HELP_HEADING, VIM_HELP_TITLE } from '../../../source/ui/panes/input/vim/vim-keys.js'
import { TuiRoot } from '../../../source/ui/tui-root.js'
import { fakeCommands, KEYS, makeStore, renderSized, waitFor } from '../shell/helpers.js'

const theme = createTheme({ level: 0 })

/** Every row of the `?` overlay at this size, paged through to the end (the frame's overlay part only). */
async function overlayRows(columns: number, rows: number, opts: { vim?: boolean } = {}): Promise<string[]> {
  const store = makeStore([])
  if (opts.vim) store.dispatch({ type: 'ui/editor-mode', mode: 'vim' })
  const r = renderSized(
    <TuiRoot
      store={store}
      commands={fakeCommands({ store })}
      contextLimit={100_000}
      theme={theme}
      branch="main"
      doublePressMs={60_000}
      onExit={() => {}}
    />,
    columns,
    rows,
  )
  r.stdin.write('?')
  await waitFor(() => r.frame().includes('Keys and commands'), r.frame)
  // Vim mode's section comes from its own module, a render later; the title says when it is in.
  if (opts.vim) await waitFor(() => r.frame().includes(VIM_HELP_HEADING), r.frame)
  const pages: string[][] = []
  const body = () => {
    const lines = r.frame().split('\n')
    const end = lines.findIndex((l) => l.includes('any other key closes'))
    return lines.slice(1, end)
  }
  for (;;) {
    const page = body()
    pages.push(page)
    if (page.some((l) => l.startsWith('Input: @path'))) break
    const before = r.frame()
    r.stdin.write(KEYS.pageDown)
    await waitFor(() => r.frame() !== before, r.frame)
  }
  r.instance.unmount()
  // Pages overlap at the end (the last page is scrolled to the bottom): keep each row once, in order.
  const all: string[] = []
  for (const page of pages) {
    const overlap = (() => {
      for (let k = Math.min(page.length, all.length); k > 0; k--)
        if (all.slice(-k).join('\n') === page.slice(0, k).join('\n')) return k
      return 0
    })()
    all.push(...page.slice(overlap))
  }
  return all
}

/** Where descriptions start, and every row that breaks the two-column layout. */
function layoutProblems(rows: string[], width: number): { column: number; problems: string[] } {
  const esc = rows.find((r) => r.includes('Interrupt the running step')) ?? ''
  const column = esc.indexOf('Interrupt the running step')
  const problems: string[] = []
  const entries = rows.slice(
    0,
    rows.findIndex((r) => r.startsWith('Input: @path')),
  )
  entries.forEach((row, i) => {
    if (stringWidth(row) > width) problems.push(`wider than ${width}: ${row}`)
    if (row === '' || !row.startsWith(' ')) return // title, section, blank
    if (new RegExp(`^ {${column}}\\S`).test(row)) return // a description continued in its column
    const entry = /^ {2}\S.*?\s{2,}(\S)/.exec(row)
    if (entry) {
      const at = row.length - row.slice(entry.index + entry[0].length - 1).length
      if (at !== column) problems.push(`description at column ${at}, not ${column}: ${row}`)
      return
    }
    // A label alone on its line: its description follows, in the description column.
    if (/^ {2}\S/.test(row) && new RegExp(`^ {${column}}\\S`).test(entries[i + 1] ?? '')) return
    problems.push(`not in the two columns: ${JSON.stringify(row)}`)
  })
  return { column, problems }
}

describe('the keys overlay keeps descriptions in their own column', () => {
  for (const [columns, rows] of [
    [80, 24],
    [100, 30],
    [120, 40],
  ] as const) {
    it(`at ${columns}×${rows}`, async () => {
      const all = await overlayRows(columns, rows)
      const { column, problems } = layoutProblems(all, columns)
      expect(column).toBeGreaterThan(10)
      expect(problems).toEqual([])
      // The longest usage gets a line of its own, its description below in the column.
      const plugin = all.findIndex((r) => r.startsWith('  /plugin [enable <name> | disable <name>]'))
      expect(all[plugin + 1]?.indexOf('Show the plugins this session loaded')).toBe(column)
      // Every slash command and the closing input line are there.
      expect(all.some((r) => r.startsWith('  /quit'))).toBe(true)
      expect(all.some((r) => /^ {2}Ctrl\+V +Paste an image from the clipboard/.test(r))).toBe(true)
      // The /mcp panel's keys have their section.
      const mcp = all.indexOf('MCP panel (/mcp)')
      expect(mcp).toBeGreaterThan(0)
      const section = all.slice(mcp).join('\n')
      for (const text of [
        'Space',
        'Turn the server',
        "List the server's tools",
        'Remove the server',
        'Back to the servers',
      ])
        expect(section).toContain(text)
      // The tasks pane's `o`, in its section, in the description column.
      const tasks = all.indexOf('Tasks pane')
      const open = all.findIndex((r) => r.startsWith('  o ') && r.includes('Open the URL of the port'))
      expect(open).toBeGreaterThan(tasks)
      expect(all[open]?.indexOf('Open the URL of the port')).toBe(column)
      // The transcript search's keys, each with what it does.
      const search = all.indexOf('Transcript search (Ctrl+F)')
      expect(search).toBeGreaterThan(0)
      const entry = (key: string, text: string) =>
        all.some((r) => r.startsWith(`  ${key} `) && r.includes(text))
      expect(entry('Ctrl+F', 'Search the transcript')).toBe(true)
      for (const [key, text] of [
        ['Enter / ↓', 'Next match (in the field)'],
        ['Shift+Enter / ↑', 'Previous match'],
        ['Tab', 'Keys to the transcript'],
        ['n', 'Next match (transcript focused)'],
        ['N', 'Previous match (transcript focused)'],
        ['/', 'Edit the query'],
        ['Esc', 'Close the search'],
      ] as const)
        expect(
          all.slice(search).some((r) => r.startsWith(`  ${key} `) && r.includes(text)),
          key,
        ).toBe(true)
    })
  }
})

describe('vim mode in the keys overlay', () => {
  for (const [columns, rows] of [
    [80, 24],
    [100, 30],
    [120, 40],
  ] as const) {
    it(`lists every vim key while vim mode is on, in the two columns, at ${columns}×${rows}`, async () => {
      const all = await overlayRows(columns, rows, { vim: true })
      const { problems } = layoutProblems(all, columns)
      expect(problems).toEqual([])
      const start = all.indexOf(VIM_HELP_TITLE)
      expect(start).toBeGreaterThan(all.indexOf('Input'))
      const section = all.slice(start + 1, all.indexOf('', start))
      for (const row of VIM_HELP) expect(section.some((r) => r.startsWith(`  ${row.keys} `))).toBe(true)
    })
  }

  it('has no vim section with vim mode off', async () => {
    const all = await overlayRows(120, 40)
    expect(all.some((r) => r.startsWith('Vim mode'))).toBe(false)
  })
})

describe('layoutEntry', () => {
  const cases: Array<{
    name: string
    key: string
    text: string
    keyWidth: number
    width: number
    want: string[]
  }> = [
    { name: 'fits', key: 'Esc', text: 'Interrupt', keyWidth: 6, width: 40, want: ['  Esc     Interrupt'] },
    {
      name: 'wraps in its column',
      key: 'Ctrl+T',
      text: 'Todo pane: show or hide it',
      keyWidth: 6,
      width: 24,
      want: ['  Ctrl+T  Todo pane:', '          show or hide', '          it'],
    },
    {
      name: 'a label wider than the key column gets its own line',
      key: '/plugin [enable <name>]',
      text: 'Show the plugins',
      keyWidth: 6,
      width: 40,
      want: ['  /plugin [enable <name>]', '          Show the plugins'],
    },
    {
      name: 'a word longer than the column is cut, never spilled left',
      key: 'k',
      text: 'abcdefghijklmnop',
      keyWidth: 2,
      width: 14,
      want: ['  k   abcdefgh', '      ijklmnop'],
    },
  ]
  for (const c of cases)
    it(c.name, () => {
      expect(layoutEntry(c.key, c.text, c.keyWidth, c.width)).toEqual(c.want)
    })
})

describe('keyColumnWidth', () => {
  it('is the longest label that leaves descriptions 40 columns, capped at 34', () => {
    const labels = ['Esc', 'Ctrl+J / Shift+Enter / Alt+Enter', '/plugin [enable <name> | disable <name>]']
    expect(keyColumnWidth(labels, 80)).toBe(32)
    expect(keyColumnWidth(labels, 120)).toBe(32)
    expect(keyColumnWidth(labels, 60)).toBe(3)
  })
})
