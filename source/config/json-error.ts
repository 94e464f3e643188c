/**
 * Locates the first syntax error in a JSON text. V8's JSON.parse messages only sometimes carry a
 * position, and settings errors must always say line and column.
 */

export interface JsonErrorLocation {
  /** 0-based offset of the offending character (text length for an unexpected end). */
  offset: number
  /** 1-based line and column. */
  line: number
  column: number
}

/** Returns where `text` stops being valid JSON, or undefined when it is valid. */
export function locateJsonError(text: string): JsonErrorLocation | undefined {
  const offset = firstErrorOffset(text)
  if (offset === undefined) return undefined
  const before = text.slice(0, offset)
  const line = before.split('\n').length
  const column = offset - (before.lastIndexOf('\n') + 1) + 1
  return { offset, line, column }
}

/** The parser's message without its own position suffix or the echo of the whole input. */
export function cleanJsonMessage(message: string): string {
  return message
    .replace(/ in JSON at position \d+(?: \(line \d+ column \d+\))?/, '')
    .replace(/, ".*" is not valid JSON$/s, '')
}

class Stop {
  readonly offset: number
  constructor(offset: number) {
    this.offset = offset
  }
}

function firstErrorOffset(text: string): number | undefined {
  let i = 0
  const stop = (): never => {
    throw new Stop(i)
  }
  const skipSpace = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++
  }
  const number = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y
  const readString = () => {
    i++
    while (i < text.length) {
      const c = text[i]!
      if (c === '"') {
        i++
        return
      }
      if (c === '\\') {
        const next = text[i + 1]
        if (next === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
            i += 2
            stop()
          }
          i += 6
          continue
        }
        if (next === undefined || !'"\\/bfnrt'.includes(next)) {
          i++
          stop()
        }
        i += 2
        continue
      }
      if (c < ' ') stop()
      i++
    }
    stop()
  }
  const readValue = (): void => {
    skipSpace()
    const c = text[i]
    if (c === '{') {
      i++
      skipSpace()
      if (text[i] === '}') {
        i++
        return
      }
      for (;;) {
        skipSpace()
        if (text[i] !== '"') stop()
        readString()
        skipSpace()
        if (text[i] !== ':') stop()
        i++
        readValue()
        skipSpace()
        if (text[i] === ',') {
          i++
          continue
        }
        if (text[i] === '}') {
          i++
          return
        }
        stop()
      }
    }
    if (c === '[') {
      i++
      skipSpace()
      if (text[i] === ']') {
        i++
        return
      }
      for (;;) {
        readValue()
        skipSpace()
        if (text[i] === ',') {
          i++
          continue
        }
        if (text[i] === ']') {
          i++
          return
        }
        stop()
      }
    }
    if (c === '"') {
      readString()
      return
    }
    for (const word of ['true', 'false', 'null']) {
      if (text.startsWith(word, i)) {
        i += word.length
        return
      }
    }
    number.lastIndex = i
    const m = number.exec(text)
    if (!m) stop()
    i += m![0].length
  }
  try {
    readValue()
    skipSpace()
    if (i < text.length) stop()
    return undefined
  } catch (err) {
    if (err instanceof Stop) return err.offset
    throw err
  }
}
