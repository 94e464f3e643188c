import { describe, expect, it } from 'vitest'
import {
  describeHeaders,
  headerRecord,
  mergeHeaders,
  parseHeaderLine,
  parseHeaderLines,
  redactHeaderValue,
} from '../../../source/config/headers.js'

describe('parseHeaderLine', () => {
  it.each<[string, { name: string; value: string }]>([
    ['x-portkey-provider: openai', { name: 'x-portkey-provider', value: 'openai' }],
    ['Helicone-Auth: Bearer sk-helicone-1', { name: 'Helicone-Auth', value: 'Bearer sk-helicone-1' }],
    ['X-Empty:', { name: 'X-Empty', value: '' }],
    ['x-url: https://a.example/b?c=d', { name: 'x-url', value: 'https://a.example/b?c=d' }],
  ])('%j', (line, expected) => {
    expect(parseHeaderLine(line)).toEqual(expected)
  })

  it.each<[string, string]>([
    ['no colon here', 'expected "Name: value"'],
    [': value', 'expected "Name: value"'],
    ['bad name: v', '"bad name" is not a header name'],
    ['host: evil.example', 'set by the HTTP client'],
    ['Transfer-Encoding: chunked', 'set by the HTTP client'],
    ['Connection: close', 'set by the HTTP client'],
    ['x-a: one\rx-b: two', 'line break'],
    ['x-a: one\u0000', 'line break or NUL'],
    ['x-a: bell\u0007', 'control characters'],
  ])('%j is refused: %s', (line, message) => {
    expect(() => parseHeaderLine(line)).toThrow(message)
  })
})

describe('parseHeaderLines (AGENT_TUI_CUSTOM_HEADERS)', () => {
  it('reads one header per line, skipping blank lines and CRLF endings', () => {
    expect(parseHeaderLines('x-portkey-provider: openai\r\n\n  x-portkey-trace-id: run-7  \n')).toEqual([
      { name: 'x-portkey-provider', value: 'openai' },
      { name: 'x-portkey-trace-id', value: 'run-7' },
    ])
  })

  it('names the line at fault', () => {
    expect(() => parseHeaderLines('x-a: 1\nnot a header')).toThrow('line 2: expected "Name: value"')
  })
})

describe('mergeHeaders', () => {
  it('settings < environment < flags, by name whatever its case, each where it first appeared', () => {
    const merged = mergeHeaders([
      {
        from: 'settings',
        headers: [
          { name: 'x-portkey-provider', value: 'openai' },
          { name: 'x-team', value: 'core' },
        ],
      },
      { from: 'env', headers: [{ name: 'X-Portkey-Provider', value: 'anthropic' }] },
      { from: 'flag', headers: [{ name: 'x-team', value: 'infra' }] },
    ])
    expect(merged).toEqual([
      { name: 'X-Portkey-Provider', value: 'anthropic', from: 'env' },
      { name: 'x-team', value: 'infra', from: 'flag' },
    ])
    expect(headerRecord(merged)).toEqual({ 'X-Portkey-Provider': 'anthropic', 'x-team': 'infra' })
  })
})

describe('redaction', () => {
  it('never shows a value whole', () => {
    expect(redactHeaderValue('pk-live-0123456789abcdef')).toBe('pk…ef (24 characters)')
    expect(redactHeaderValue('openai')).toBe('••• (6 characters)')
    expect(redactHeaderValue('')).toBe('••• (0 characters)')
    expect(
      describeHeaders([{ name: 'x-portkey-api-key', value: 'pk-live-0123456789abcdef', from: 'flag' }]),
    ).toEqual(['x-portkey-api-key: pk…ef (24 characters) (--header)'])
  })
})
