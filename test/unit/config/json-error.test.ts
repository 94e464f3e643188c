import { describe, expect, it } from 'vitest'
import { cleanJsonMessage, locateJsonError } from '../../../source/config/json-error.js'

describe('locateJsonError', () => {
  it.each<[string, [number, number] | undefined]>([
    ['{}', undefined],
    [' {"a": [1, -2.5e3, true, false, null, "x\\n\\u00e9"]} ', undefined],
    ['{"a": 1,}', [1, 9]],
    ['{\n  "a": 1\n  "b": 2\n}', [3, 3]],
    ['{"a": }', [1, 7]],
    ['{"a": tru}', [1, 7]],
    ['{"a": 01}', [1, 8]],
    ['{"a": "x', [1, 9]],
    ['{"a": "\\q"}', [1, 9]],
    ['{"a": "\\u12"}', [1, 10]],
    ['{"a": 1} x', [1, 10]],
    ["{'a': 1}", [1, 2]],
    ['', [1, 1]],
    ['[1, 2', [1, 6]],
  ])('%j → %j', (text, expected) => {
    const at = locateJsonError(text)
    expect(at === undefined ? undefined : [at.line, at.column]).toEqual(expected)
  })

  it('agrees with JSON.parse on validity', () => {
    for (const text of ['{"a":1}', '{"a":1,}', '[]', '[,]', '"\\u00zz"', '1e', '-']) {
      let valid = true
      try {
        JSON.parse(text)
      } catch {
        valid = false
      }
      expect(locateJsonError(text) === undefined).toBe(valid)
    }
  })
})

describe('cleanJsonMessage', () => {
  it.each<[string, string]>([
    [
      'Expected double-quoted property name in JSON at position 14 (line 3 column 3)',
      'Expected double-quoted property name',
    ],
    ['Unexpected token \'}\', "{"a": }" is not valid JSON', "Unexpected token '}'"],
    ['Unexpected end of JSON input', 'Unexpected end of JSON input'],
  ])('%j → %j', (message, expected) => {
    expect(cleanJsonMessage(message)).toBe(expected)
  })
})
