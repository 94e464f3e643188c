import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  credentialsPath,
  readStoredKey,
  storeKey,
  storedKeyUrls,
} from '../../../source/config/credentials.js'
import { resolveConfig } from '../../../source/config/resolve-config.js'
import { saveEndpoint } from '../../../source/config/save-endpoint.js'
import { parseArgs } from '../../../source/config/flags.js'

let dir: string
let paths: { configDir: string; userSettingsFile: string }

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agent-tui-cred-'))
  const configDir = join(dir, 'config', 'agent-tui')
  paths = { configDir, userSettingsFile: join(configDir, 'settings.json') }
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const settings = () => JSON.parse(readFileSync(paths.userSettingsFile, 'utf8'))

describe('credentials.json', () => {
  it('keeps each key for its base URL, 0600 in a 0700 config dir', () => {
    storeKey(paths, 'https://api.a.example/v1/', 'sk-a')
    storeKey(paths, 'https://api.b.example/v1', 'sk-b')
    expect(readStoredKey(paths, 'https://api.a.example/v1')).toEqual({ key: 'sk-a' })
    expect(readStoredKey(paths, 'https://api.b.example/v1/')).toEqual({ key: 'sk-b' })
    // Another URL gets nothing: a settings file pointing elsewhere never receives the key.
    expect(readStoredKey(paths, 'https://evil.example/v1')).toEqual({})
    expect(statSync(credentialsPath(paths)).mode & 0o777).toBe(0o600)
    expect(statSync(paths.configDir).mode & 0o777).toBe(0o700)
    expect(storedKeyUrls(paths).sort()).toEqual(['https://api.a.example/v1', 'https://api.b.example/v1'])
    storeKey(paths, 'https://api.a.example/v1', undefined)
    expect(readStoredKey(paths, 'https://api.a.example/v1')).toEqual({})
    expect(readStoredKey(paths, 'https://api.b.example/v1')).toEqual({ key: 'sk-b' })
  })

  it('a file others can read is named (and still used)', () => {
    storeKey(paths, 'https://api.a.example/v1', 'sk-a')
    chmodSync(credentialsPath(paths), 0o644)
    expect(readStoredKey(paths, 'https://api.a.example/v1')).toEqual({ key: 'sk-a', looseMode: 0o644 })
  })

  it('a link planted at the name is neither read nor written through', () => {
    mkdirSync(paths.configDir, { recursive: true })
    const target = join(dir, 'elsewhere.json')
    writeFileSync(target, JSON.stringify({ version: 1, keys: { 'https://x/v1': 'planted' } }))
    symlinkSync(target, credentialsPath(paths))
    const read = readStoredKey(paths, 'https://x/v1')
    expect(read.key).toBeUndefined()
    expect(read.problem).toMatch(/credentials\.json/)
    expect(() => storeKey(paths, 'https://x/v1', 'sk-new')).toThrow(/cannot update/)
    expect(readFileSync(target, 'utf8')).toContain('planted')
    expect(lstatSync(credentialsPath(paths)).isSymbolicLink()).toBe(true)
  })

  it('a file that is not JSON is a problem, not a crash', () => {
    mkdirSync(paths.configDir, { recursive: true })
    writeFileSync(credentialsPath(paths), '{oops', { mode: 0o600 })
    expect(readStoredKey(paths, 'https://x/v1').problem).toMatch(/not valid JSON/)
  })
})

describe('saveEndpoint', () => {
  it('puts baseUrl and model in the user settings, the typed key in credentials.json only', async () => {
    mkdirSync(paths.configDir, { recursive: true })
    writeFileSync(
      paths.userSettingsFile,
      JSON.stringify({ theme: 'light', apiKey: 'sk-old', apiKeyEnv: 'OLD' }),
    )
    const saved = await saveEndpoint(paths, {
      baseUrl: 'https://api.a.example/v1',
      model: 'gpt-x',
      key: { kind: 'stored', key: 'sk-secret' },
    })
    expect(settings()).toEqual({ theme: 'light', baseUrl: 'https://api.a.example/v1', model: 'gpt-x' })
    expect(readFileSync(paths.userSettingsFile, 'utf8')).not.toContain('sk-')
    expect(saved.removed).toEqual(['apiKey'])
    expect(readStoredKey(paths, 'https://api.a.example/v1').key).toBe('sk-secret')
  })

  it('a key from a variable saves only its name; choosing none forgets a stored key', async () => {
    storeKey(paths, 'http://127.0.0.1:8080/v1', 'sk-old')
    await saveEndpoint(paths, {
      baseUrl: 'http://127.0.0.1:8080/v1',
      model: 'm',
      key: { kind: 'env', name: 'MY_KEY' },
    })
    expect(settings()).toEqual({ baseUrl: 'http://127.0.0.1:8080/v1', model: 'm', apiKeyEnv: 'MY_KEY' })
    expect(readStoredKey(paths, 'http://127.0.0.1:8080/v1')).toEqual({})
    await saveEndpoint(paths, { baseUrl: 'http://127.0.0.1:8080/v1', model: 'm', key: { kind: 'none' } })
    expect(settings()).toEqual({ baseUrl: 'http://127.0.0.1:8080/v1', model: 'm' })
  })

  it("never moves a file's headers to another origin: not saved, the file unchanged; the same origin saves", async () => {
    mkdirSync(paths.configDir, { recursive: true })
    const before = JSON.stringify({ baseUrl: 'https://gw.example/v1', headers: { 'x-gw-key': 'gw-secret' } })
    writeFileSync(paths.userSettingsFile, before)
    const elsewhere = { baseUrl: 'https://b.example/v1', model: 'm', key: { kind: 'none' } as const }
    await expect(saveEndpoint(paths, elsewhere)).rejects.toThrow(
      `not saved: ${paths.userSettingsFile} has "headers" for https://gw.example; saved with https://b.example they would be sent there from the next start`,
    )
    expect(readFileSync(paths.userSettingsFile, 'utf8')).toBe(before)
    await saveEndpoint(paths, { ...elsewhere, baseUrl: 'https://gw.example/v2' })
    expect(settings()).toEqual({
      baseUrl: 'https://gw.example/v2',
      headers: { 'x-gw-key': 'gw-secret' },
      model: 'm',
    })
    // Headers with no baseUrl of their own would take the saved one's origin: refused too.
    writeFileSync(paths.userSettingsFile, JSON.stringify({ headers: { 'x-gw-key': 'gw-secret' } }))
    await expect(saveEndpoint(paths, elsewhere)).rejects.toThrow('has "headers" and no "baseUrl"')
  })

  it('refuses a settings file that is not JSON rather than replace it', async () => {
    mkdirSync(paths.configDir, { recursive: true })
    writeFileSync(paths.userSettingsFile, '{ "theme": ')
    await expect(
      saveEndpoint(paths, { baseUrl: 'https://a/v1', model: 'm', key: { kind: 'none' } }),
    ).rejects.toThrow(/not valid JSON/)
    expect(readFileSync(paths.userSettingsFile, 'utf8')).toBe('{ "theme": ')
  })
})

describe('apiKeyEnv in settings', () => {
  const loaded = (s: Record<string, unknown>) =>
    ({
      merged: s,
      sources: [],
      rules: { allow: [], ask: [], deny: [] },
      localSettingsPath: '/p/l.json',
    }) as never
  it('reads the key from the named variable; OPENAI_API_KEY and flags still win', () => {
    const args = parseArgs([])
    const named = resolveConfig(args, loaded({ apiKeyEnv: 'MY_KEY' }), { MY_KEY: 'sk-named' })
    expect(named.apiKey).toBe('sk-named')
    expect(named.apiKeyEnv).toBe('MY_KEY')
    expect(
      resolveConfig(args, loaded({ apiKeyEnv: 'MY_KEY' }), { MY_KEY: 'a', OPENAI_API_KEY: 'b' }).apiKey,
    ).toBe('b')
    const unset = resolveConfig(args, loaded({ apiKeyEnv: 'MY_KEY' }), {})
    expect(unset.apiKey).toBeUndefined()
    expect(unset.warnings.join('\n')).toMatch(/MY_KEY, which is not set/)
  })
})
