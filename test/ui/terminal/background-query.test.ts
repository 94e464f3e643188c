import { describe, expect, it } from 'vitest'
import type { Rgb } from '../../../source/ui/components/palette.js'
import {
  BACKGROUND_QUERY,
  backgroundFromColorFgBg,
  backgroundOf,
  createBackgroundProbe,
  createReplyFilter,
  parseBackgroundReply,
} from '../../../source/ui/terminal/background-query.js'

describe('parseBackgroundReply', () => {
  it.each([
    ['rgb:ffff/ffff/ffff', [255, 255, 255]],
    ['rgb:0000/0000/0000', [0, 0, 0]],
    ['rgb:ff/ff/ff', [255, 255, 255]],
    ['rgb:1e1e/1e1e/2e2e', [30, 30, 46]],
    ['rgb:1e/1e/2e', [30, 30, 46]],
    ['rgb:f/0/8', [255, 0, 136]],
    ['rgb:FDFD/F6F6/E3E3', [253, 246, 227]],
    ['rgba:ffff/ffff/ffff/ffff', [255, 255, 255]],
    ['#fdf6e3', [253, 246, 227]],
    ['#fff', [255, 255, 255]],
  ] as const)('%s → %j', (body, rgb) => {
    expect(parseBackgroundReply(body)).toEqual(rgb)
  })
  it.each(['', '?', 'rgb:', 'rgb:ff/ff', 'rgb:fffff/0/0', 'rgb:gg/00/00', 'white', '#ffff', 'rgb:ff/ff/ff '])(
    '%j is no colour',
    (body) => {
      expect(parseBackgroundReply(body)).toBeNull()
    },
  )
})

describe('backgroundOf', () => {
  it.each([
    [[255, 255, 255], 'light'],
    [[253, 246, 227], 'light'],
    [[0, 0, 0], 'dark'],
    [[0, 43, 54], 'dark'],
    [[30, 30, 46], 'dark'],
    [[200, 200, 200], 'light'],
  ] as const)('%j is %s', (rgb, background) => {
    expect(backgroundOf(rgb as unknown as Rgb)).toBe(background)
  })
})

describe('backgroundFromColorFgBg', () => {
  it.each([
    ['15;0', 'dark'],
    ['0;15', 'light'],
    ['0;7', 'light'],
    ['15;default;0', 'dark'],
    ['0;default;15', 'light'],
    ['7;8', 'dark'],
    ['default;default', undefined],
    ['', undefined],
    [undefined, undefined],
    ['0;231', undefined],
  ] as const)('%j → %s', (value, background) => {
    expect(backgroundFromColorFgBg(value)).toBe(background)
  })
})

/** Feeds reads through one filter; what passed, and the replies found. */
function run(chunks: string[], expecting = true) {
  const replies: Array<Rgb | null> = []
  const filter = createReplyFilter(
    () => expecting,
    (rgb) => replies.push(rgb),
  )
  const passed = chunks.map((c) => filter.push(c))
  return { passed, text: passed.join('') + filter.flush(), replies }
}

const WHITE_BEL = '\x1b]11;rgb:ffff/ffff/ffff\x07'
const WHITE_ST = '\x1b]11;rgb:ffff/ffff/ffff\x1b\\'

describe('the reply filter', () => {
  it.each([
    ['a BEL reply alone', [WHITE_BEL], ''],
    ['an ST reply alone', [WHITE_ST], ''],
    ['a reply between typed keys', [`ab${WHITE_BEL}cd`], 'abcd'],
    ['a reply then Enter', [`${WHITE_ST}\r`], '\r'],
    ['a reply split in two', ['hi\x1b]11;rgb:ff', 'ff/ffff/ffff\x07there'], 'hithere'],
    ['a reply split after ESC', ['x\x1b', ']11;rgb:ffff/ffff/ffff\x07y'], 'xy'],
    ['a reply split inside ST', ['\x1b]11;rgb:ffff/ffff/ffff\x1b', '\\z'], 'z'],
    ['a reply byte by byte', [...`k${WHITE_BEL}j`], 'kj'],
    ['two replies', [WHITE_BEL + WHITE_ST], ''],
  ])('%s: takes the reply out, keeps every key', (_name, chunks, text) => {
    const r = run(chunks)
    expect(r.text).toBe(text)
    expect(r.replies.length).toBeGreaterThan(0)
    expect(r.replies[0]).toEqual([255, 255, 255])
  })

  it.each([
    ['plain text', ['hello'], 'hello'],
    ['arrow keys', ['\x1b[A\x1b[B'], '\x1b[A\x1b[B'],
    ['Esc alone, no reply coming', ['\x1b'], '\x1b'],
    ['Alt+x', ['\x1bx'], '\x1bx'],
    ['another OSC', ['\x1b]10;rgb:0/0/0\x07'], '\x1b]10;rgb:0/0/0\x07'],
    ['a bracketed paste', ['\x1b[200~pasted\x1b[201~'], '\x1b[200~pasted\x1b[201~'],
    ['UTF-8 text', ['héllo ☃'], 'héllo ☃'],
  ])('%s passes unchanged', (_name, chunks, text) => {
    const r = run(chunks, false)
    expect(r.passed.join('')).toBe(text)
    expect(r.replies).toEqual([])
  })

  it('holds a lone ESC only while a reply may still come, and gives it back on flush', () => {
    const waiting = run(['\x1b'], true)
    expect(waiting.passed).toEqual([''])
    expect(waiting.text).toBe('\x1b')
    expect(run(['\x1b'], false).passed).toEqual(['\x1b'])
  })

  it('gives up on a start that never ends: garbage after it is typed text', () => {
    const long = `\x1b]11;${'x'.repeat(80)}`
    const r = run([long, 'more'])
    expect(r.text).toBe(`${long}more`)
    expect(r.replies).toEqual([])
  })

  it('takes out a reply it cannot read, and reports it as none', () => {
    const r = run(['a\x1b]11;what\x07b'])
    expect(r.text).toBe('ab')
    expect(r.replies).toEqual([null])
  })
})

describe('the background probe', () => {
  it('asks once, answers its listeners once, and keeps the fallback until then', () => {
    const written: string[] = []
    const probe = createBackgroundProbe({ fallback: 'dark' })
    const heard: string[] = []
    probe.onAnswer((b) => heard.push(b))
    probe.ask((t) => written.push(t))
    probe.ask((t) => written.push(t))
    expect(written).toEqual([BACKGROUND_QUERY])
    expect(probe.background()).toBe('dark')
    const early = probe.filter()
    // The early frame saw the start of it, the key reader the rest (the early frame hands back what it held).
    expect(early.push('a\x1b]11;rgb:ff')).toBe('a')
    const late = probe.filter()
    expect(late.push(`${early.flush()}ff/ffff/ffff\x07b`)).toBe('b')
    expect(probe.background()).toBe('light')
    expect(late.push(WHITE_BEL)).toBe('')
    expect(heard).toEqual(['light'])
  })
})
