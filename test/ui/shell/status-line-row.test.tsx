import { describe, expect, it } from 'vitest'
import { createTheme } from '../../../source/ui/components/theme.js'
import { StatusBar } from '../../../source/ui/panes/status/status-bar.js'
import { statusText } from '../../../source/user-hooks/status-line.js'
import { fakeCommands, makeStore, renderPane, waitFor } from './helpers.js'

const theme = createTheme({ level: 0 })

describe('the status line command row', () => {
  it('is a second row under the status bar with the line, cut to the width; none without a line', async () => {
    const store = makeStore([], 'safe')
    const r = renderPane(<StatusBar theme={theme} width={40} contextLimit={1000} />, {
      store,
      commands: fakeCommands(),
    })
    expect(r.frame().split('\n')).toHaveLength(1)
    store.dispatch({ type: 'status/line', text: statusText(`\x1b[32m[qwen3]\x1b[0m main ${'x'.repeat(60)}`) })
    await waitFor(() => r.frame().split('\n').length === 2)
    const [bar, line] = r.frame().split('\n')
    expect(bar).toContain(' SAFE ')
    expect(line).toMatch(/^ \[qwen3\] main x+/)
    expect(line?.length).toBeLessThanOrEqual(40)
    store.dispatch({ type: 'status/line', text: '' })
    await waitFor(() => r.frame().split('\n').length === 1)
    r.unmount()
  })
})
