import { mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ConfigError } from '../../../source/config/errors.js'
import { saveUserSetting } from '../../../source/config/save-user-setting.js'

let dir: string
let paths: { configDir: string; userSettingsFile: string }

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agent-tui-save-setting-'))
  const configDir = join(dir, 'config', 'agent-tui')
  paths = { configDir, userSettingsFile: join(configDir, 'settings.json') }
})

afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

const read = async () => JSON.parse(await readFile(paths.userSettingsFile, 'utf8'))

describe('saveUserSetting (/vim saves editorMode)', () => {
  it('creates the file and its folder, and resolves with its path', async () => {
    expect(await saveUserSetting(paths, 'editorMode', 'vim')).toBe(paths.userSettingsFile)
    expect(await read()).toEqual({ editorMode: 'vim' })
  })

  it('keeps every other key and replaces the one it sets; no temp file is left', async () => {
    await saveUserSetting(paths, 'editorMode', 'vim')
    await writeFile(paths.userSettingsFile, JSON.stringify({ model: 'm', editorMode: 'vim', theme: 'dark' }))
    await saveUserSetting(paths, 'editorMode', 'normal')
    expect(await read()).toEqual({ model: 'm', editorMode: 'normal', theme: 'dark' })
    expect(await readdir(paths.configDir)).toEqual(['settings.json'])
  })

  it('never overwrites a file that is not valid JSON', async () => {
    await saveUserSetting(paths, 'editorMode', 'vim')
    await writeFile(paths.userSettingsFile, '{ "model": "m", ')
    await expect(saveUserSetting(paths, 'editorMode', 'normal')).rejects.toThrow(ConfigError)
    await expect(saveUserSetting(paths, 'editorMode', 'normal')).rejects.toThrow(/not valid JSON/)
    expect(await readFile(paths.userSettingsFile, 'utf8')).toBe('{ "model": "m", ')
  })

  it('writes nothing the next start would refuse (a wrong key already there is named)', async () => {
    await saveUserSetting(paths, 'editorMode', 'vim')
    await writeFile(paths.userSettingsFile, JSON.stringify({ maxSteps: 'many' }))
    await expect(saveUserSetting(paths, 'editorMode', 'normal')).rejects.toThrow(/maxSteps/)
    expect(await read()).toEqual({ maxSteps: 'many' })
  })

  it('refuses a link at the settings file, saying so, and writes nothing through it', async () => {
    await saveUserSetting(paths, 'editorMode', 'vim')
    const elsewhere = join(dir, 'elsewhere.json')
    await writeFile(elsewhere, '{}')
    await rm(paths.userSettingsFile)
    await symlink(elsewhere, paths.userSettingsFile)
    await expect(saveUserSetting(paths, 'editorMode', 'normal')).rejects.toThrow(/is a symbolic link/)
    expect(await readFile(elsewhere, 'utf8')).toBe('{}')
  })
})
