import chalk from 'chalk'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PALETTES } from '../../../source/ui/components/palette.js'
import { Text } from '../../../source/ui/components/text.js'
import { createTheme } from '../../../source/ui/components/theme.js'
import { Themed } from '../../../source/ui/components/themed.js'
import { StatusBar } from '../../../source/ui/panes/status/status-bar.js'
import { fakeCommands, makeStore, renderPane, waitFor } from '../shell/helpers.js'

// Ink colours with the global chalk, off in tests: on at truecolor here, so the frame has the real SGR.
let level: typeof chalk.level
beforeAll(() => {
  level = chalk.level
  chalk.level = 3
})
afterAll(() => {
  chalk.level = level
})

const fg = (hex: string) => {
  const n = Number.parseInt(hex.slice(1), 16)
  return `\x1b[38;2;${(n >> 16) & 255};${(n >> 8) & 255};${n & 255}m`
}

function renderBar(store: ReturnType<typeof makeStore>) {
  return renderPane(
    <Themed base={createTheme({ level: 3 })}>
      {(theme) => (
        <>
          <StatusBar width={100} contextLimit={1000} theme={theme} />
          <Text dimColor>a hint</Text>
        </>
      )}
    </Themed>,
    { store, commands: fakeCommands() },
  )
}

describe('Themed: the panes in the active palette', () => {
  it('draws the status bar and dim text in the light palette when the theme is light', () => {
    const store = makeStore()
    store.dispatch({ type: 'ui/theme', theme: 'light' })
    const r = renderBar(store)
    const frame = r.lastFrame() ?? ''
    const light = PALETTES.light
    expect(frame).toContain(fg(light.mode.safe.color))
    expect(frame).toContain(fg(light.link))
    expect(frame).toContain(`${fg(light.faint as string)}a hint`)
    // Nothing of the dark palette's named colours (SGR 3x) is left.
    expect(frame).not.toMatch(/\x1b\[3[0-7]m/)
    expect(frame).not.toContain('\x1b[2m')
    r.unmount()
  })

  it('switches auto from dark to light on a later frame when the terminal says its background', async () => {
    const store = makeStore()
    const r = renderBar(store)
    expect(r.lastFrame()).toContain('\x1b[32m')
    expect(r.lastFrame()).toContain('\x1b[2ma hint')
    store.dispatch({ type: 'ui/background', background: 'light' })
    await waitFor(
      () => (r.lastFrame() ?? '').includes(fg(PALETTES.light.mode.safe.color)),
      () => r.lastFrame() ?? '',
    )
    // A theme chosen beats the background.
    store.dispatch({ type: 'ui/theme', theme: 'high-contrast' })
    await waitFor(
      () => (r.lastFrame() ?? '').includes(fg(PALETTES['high-contrast'].mode.safe.color)),
      () => r.lastFrame() ?? '',
    )
    expect(r.lastFrame()).toContain(`${fg(PALETTES['high-contrast'].faint as string)}a hint`)
    r.unmount()
  })
})
