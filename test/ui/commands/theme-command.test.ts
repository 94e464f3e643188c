import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { saveUserSetting } from '../../../source/config/save-setting.js'
import type { ThemeSetting } from '../../../source/store/domain.js'
import { BUILTIN_COMMANDS } from '../../../source/ui/commands/builtin-commands.js'
import type { CommandContext, FlashLevel } from '../../../source/ui/commands/command-context.js'
import { createCommandTable, runCommandLine } from '../../../source/ui/commands/command-table.js'
import { fakeCommands, makeStore } from '../shell/fake-commands.js'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

function fixture(save?: (theme: ThemeSetting) => Promise<string>) {
  const store = makeStore()
  const flashes: Array<{ text: string; level: FlashLevel }> = []
  const info: Array<{ title: string; lines: string[] }> = []
  const ignore = () => {}
  const ctx: CommandContext = {
    commands: fakeCommands({ store }),
    getState: store.getState,
    contextLimit: 100_000,
    flash: (text, level = 'info') => flashes.push({ text, level }),
    showHelp: ignore,
    showInfo: (title, lines) => info.push({ title, lines }),
    showConfirm: ignore,
    showMcp: ignore,
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
    setTheme: (theme) => store.dispatch({ type: 'ui/theme', theme }),
    ...(save ? { saveTheme: save } : {}),
  }
  const table = createCommandTable(BUILTIN_COMMANDS)
  const run = (line: string) => runCommandLine(table, line, ctx)
  return { run, flashes, info, store, table }
}

describe('/theme', () => {
  it('lists the themes with the one on, and what auto picked', async () => {
    const f = fixture()
    f.store.dispatch({ type: 'ui/background', background: 'light' })
    await f.run('/theme')
    expect(f.info[0]?.lines[0]).toBe("Now: auto (light: the terminal's background is light)")
    expect(f.info[0]?.lines.filter((l) => l.startsWith('●'))).toEqual([
      "● auto           light or dark, from the terminal's background",
    ])
  })

  it('switches for this session only, and says how to keep it', async () => {
    const saved: ThemeSetting[] = []
    const f = fixture(async (t) => {
      saved.push(t)
      return '~/.config/agent-tui/settings.json'
    })
    await f.run('/theme light')
    expect(f.store.getState().ui.theme).toBe('light')
    expect(saved).toEqual([])
    expect(f.flashes.at(-1)?.text).toBe('Theme light for this session — /theme light save keeps it')
  })

  it('saves with "save", and says where', async () => {
    const saved: ThemeSetting[] = []
    const f = fixture(async (t) => {
      saved.push(t)
      return '~/.config/agent-tui/settings.json'
    })
    await f.run('/theme high-contrast save')
    expect(f.store.getState().ui.theme).toBe('high-contrast')
    expect(saved).toEqual(['high-contrast'])
    expect(f.flashes.at(-1)?.text).toBe('Theme high-contrast — saved in ~/.config/agent-tui/settings.json')
  })

  it('keeps the switch and says why when saving fails', async () => {
    const f = fixture(async () => {
      throw new Error('settings.json is not valid JSON; fix it first')
    })
    await f.run('/theme dark save')
    expect(f.store.getState().ui.theme).toBe('dark')
    expect(f.flashes.at(-1)).toEqual({
      text: 'Theme dark for this session; not saved: settings.json is not valid JSON; fix it first',
      level: 'error',
    })
  })

  it.each([
    ['/theme solarized', 'No theme "solarized": /theme auto|dark|light|high-contrast [save]'],
    ['/theme light forever', '"forever": /theme auto|dark|light|high-contrast [save]'],
  ])('refuses %s and changes nothing', async (line, text) => {
    const f = fixture()
    await f.run(line)
    expect(f.store.getState().ui.theme).toBeUndefined()
    expect(f.flashes.at(-1)).toEqual({ text, level: 'warn' })
  })

  it('completes the names, then save', () => {
    const f = fixture()
    const theme = BUILTIN_COMMANDS.find((c) => c.name === 'theme')
    expect(theme?.completeArguments?.('', f.store.getState()).map((c) => c.value)).toEqual([
      'auto',
      'dark',
      'light',
      'high-contrast',
    ])
    expect(theme?.completeArguments?.('l', f.store.getState()).map((c) => c.value)).toEqual(['light'])
    expect(theme?.completeArguments?.('light s', f.store.getState()).map((c) => c.value)).toEqual([
      'light save',
    ])
  })
})

describe('saveUserSetting', () => {
  const paths = () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-tui-theme-'))
    dirs.push(dir)
    return { configDir: dir, userSettingsFile: join(dir, 'settings.json') }
  }

  it('sets the key and keeps every other one', async () => {
    const p = paths()
    writeFileSync(p.userSettingsFile, JSON.stringify({ model: 'm', theme: 'dark' }))
    expect(await saveUserSetting(p, 'theme', 'light')).toBe(p.userSettingsFile)
    expect(JSON.parse(readFileSync(p.userSettingsFile, 'utf8'))).toEqual({ model: 'm', theme: 'light' })
  })

  it('creates the file when there is none', async () => {
    const p = paths()
    await saveUserSetting(p, 'theme', 'high-contrast')
    expect(JSON.parse(readFileSync(p.userSettingsFile, 'utf8'))).toEqual({ theme: 'high-contrast' })
  })

  it('never overwrites a file that is not JSON, and never writes a value the next start would refuse', async () => {
    const p = paths()
    writeFileSync(p.userSettingsFile, '{ "theme": ')
    await expect(saveUserSetting(p, 'theme', 'light')).rejects.toThrow('is not valid JSON')
    expect(readFileSync(p.userSettingsFile, 'utf8')).toBe('{ "theme": ')
    writeFileSync(p.userSettingsFile, '{}')
    await expect(saveUserSetting(p, 'theme', 'solarized')).rejects.toThrow('expected one of')
    expect(readFileSync(p.userSettingsFile, 'utf8')).toBe('{}')
  })
})
