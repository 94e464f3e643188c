/**
 * Which origin each configured header belongs to, and who gets it (docs/configuration.md#request-headers):
 * the one rule every request path goes through (config/headers.ts headersFor).
 */
import { describe, expect, it } from 'vitest'
import { parseArgs } from '../../../source/config/flags.ts'
import {
  describeHeadersAt,
  type EndpointHeader,
  headersFor,
  parseHeaderLine,
  parseHeaderLines,
} from '../../../source/config/headers.ts'
import type { LoadedSettings } from '../../../source/config/load.ts'
import { resolveConfig } from '../../../source/config/resolve-config.ts'
import type { Settings } from '../../../source/config/schema.ts'

const loaded = (merged: Settings): LoadedSettings => ({
  merged,
  sources: [],
  rules: { allow: [], ask: [], deny: [] },
  localSettingsPath: '/x/.agent-tui/settings.local.json',
})

const originsOf = (args: string[], settings: Settings, env: Record<string, string> = {}) =>
  resolveConfig(parseArgs(args), loaded(settings), env).headers.map((h) => [h.name, h.origin])

describe('the origin a header belongs to', () => {
  it.each<[string, string[], Settings, Record<string, string>, Array<[string, string | undefined]>]>([
    [
      '--header: the run base URL (flag)',
      ['--base-url', 'https://gw.example/v1', '--header', 'x-k: 1'],
      {},
      {},
      [['x-k', 'https://gw.example']],
    ],
    [
      '--header: the run base URL (OPENAI_BASE_URL)',
      ['--header', 'x-k: 1'],
      {},
      { OPENAI_BASE_URL: 'http://gw.example:8080/v1' },
      [['x-k', 'http://gw.example:8080']],
    ],
    [
      'AGENT_TUI_CUSTOM_HEADERS: the run base URL (settings)',
      [],
      { baseUrl: 'https://gw.example/v1' },
      { AGENT_TUI_CUSTOM_HEADERS: 'x-e: 1' },
      [['x-e', 'https://gw.example']],
    ],
    [
      "settings headers: the settings' own baseUrl, not a --base-url elsewhere for one run",
      ['--base-url', 'http://127.0.0.1:11434/v1', '--header', 'x-f: 1'],
      { baseUrl: 'https://gw.example/v1', headers: { 'x-s': '1' } },
      {},
      [
        ['x-s', 'https://gw.example'],
        ['x-f', 'http://127.0.0.1:11434'],
      ],
    ],
    [
      'settings headers without a settings baseUrl: the run base URL',
      ['--base-url', 'https://gw.example/v1'],
      { headers: { 'x-s': '1' } },
      {},
      [['x-s', 'https://gw.example']],
    ],
    [
      'no base URL anywhere (the endpoint is probed): none',
      ['--header', 'x-f: 1'],
      { headers: { 'x-s': '1' } },
      { AGENT_TUI_CUSTOM_HEADERS: 'x-e: 1' },
      [
        ['x-s', undefined],
        ['x-e', undefined],
        ['x-f', undefined],
      ],
    ],
  ])('%s', (_, args, settings, env, expected) => {
    expect(originsOf(args, settings, env)).toEqual(expected)
  })

  it('says so when headers are configured but no base URL is', () => {
    const config = resolveConfig(parseArgs(['--header', 'x-gw-key: secret']), loaded({}), {})
    expect(config.warnings).toContain(
      'a request header is configured but no baseUrl: a local server found by probing gets none',
    )
    expect(config.warnings.join('\n')).not.toContain('secret')
  })
})

const gw: EndpointHeader[] = [
  { name: 'x-portkey-provider', value: 'openai', from: 'settings', origin: 'https://gw.example' },
  { name: 'x-gw-key', value: 'pk-live-0123456789abcdef', from: 'flag', origin: 'https://gw.example' },
]

describe('headersFor: only to the origin they were configured for', () => {
  it.each<[string, EndpointHeader[], string | undefined, Record<string, string> | undefined]>([
    [
      'the same origin, another path',
      gw,
      'https://gw.example/other/v1',
      { 'x-portkey-provider': 'openai', 'x-gw-key': 'pk-live-0123456789abcdef' },
    ],
    ['another host', gw, 'https://b.example/v1', undefined],
    ['another scheme', gw, 'http://gw.example/v1', undefined],
    ['another port', gw, 'https://gw.example:8443/v1', undefined],
    ['a suffix of the host', gw, 'https://gw.example.evil.test/v1', undefined],
    ['no endpoint', gw, undefined, undefined],
    [
      'headers configured without a base URL, to a probed server',
      [{ name: 'x-gw-key', value: 'secret', from: 'flag' }],
      'http://127.0.0.1:11434/v1',
      undefined,
    ],
    [
      'a mix: only the ones for this origin',
      [...gw, { name: 'x-local', value: '1', from: 'flag', origin: 'http://127.0.0.1:11434' }],
      'http://127.0.0.1:11434/v1',
      { 'x-local': '1' },
    ],
  ])('%s', (_, headers, baseUrl, expected) => {
    expect(headersFor(headers, baseUrl)).toEqual(expected)
  })
})

describe('describeHeadersAt (/status, /context)', () => {
  it('sent: each header redacted', () => {
    expect(describeHeadersAt(gw, 'https://gw.example/v1')).toEqual([
      'x-portkey-provider: ••• (6 characters) (settings)',
      'x-gw-key: pk…ef (24 characters) (--header)',
    ])
  })

  it('another endpoint (after /login): not sent, and why', () => {
    const lines = describeHeadersAt(gw, 'https://b.example/v1')
    expect(lines[0]).toBe(
      '2 headers not sent: configured for https://gw.example, endpoint is https://b.example',
    )
    expect(lines.slice(1)).toEqual([
      'x-portkey-provider: ••• (6 characters) (settings), not sent',
      'x-gw-key: pk…ef (24 characters) (--header), not sent',
    ])
    expect(lines.join('\n')).not.toContain('pk-live')
  })

  it('a probed server: not sent, no baseUrl was configured', () => {
    expect(
      describeHeadersAt(
        [{ name: 'x-gw-key', value: 'secret', from: 'flag' }],
        'http://127.0.0.1:11434/v1',
      )[0],
    ).toBe(
      '1 header not sent: no baseUrl was configured (a server found by probing gets none), endpoint is http://127.0.0.1:11434',
    )
  })
})

describe('header values', () => {
  it.each<[string, string]>([
    ['x-a: café', 'a header value must be ASCII (character 4 is "é")'],
    ['x-a: naïve', 'character 3 is "ï"'],
    ['x-a: a\u00a0b', 'must be ASCII'],
    ['x-a: 日本', 'must be ASCII'],
  ])('%j is refused: %s', (line, message) => {
    expect(() => parseHeaderLine(line)).toThrow(message)
  })

  it('a tab and printable ASCII are kept', () => {
    expect(parseHeaderLine('x-a: a\tb ~!')).toEqual({ name: 'x-a', value: 'a\tb ~!' })
  })

  it('a malformed line is named without its text (it may be the secret itself)', () => {
    let message = ''
    try {
      parseHeaderLines('x-a: 1\nsk-live-0123456789abcdef')
    } catch (error) {
      message = (error as Error).message
    }
    expect(message).toBe('line 2: expected "Name: value" (got sk…ef (24 characters))')
  })
})

describe('an endpoint chosen later (/login) on another origin', () => {
  it("/status's lines say the headers are not sent to it", async () => {
    const { endpointCommands } = await import('../../../source/app/list-models.ts')
    const at = (baseUrl: string) => endpointCommands({ baseUrl }, gw, () => 'm').endpointHeaders()
    expect(at('https://gw.example/v1')).toHaveLength(2)
    expect(at('https://b.example/v1')[0]).toBe(
      '2 headers not sent: configured for https://gw.example, endpoint is https://b.example',
    )
  })
})
