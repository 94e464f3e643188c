import { describe, expect, it } from 'vitest'
import { untilAborted } from '../../../source/util/until-aborted.js'

describe('untilAborted', () => {
  it("gives the work's value or error while the signal holds", async () => {
    const signal = new AbortController().signal
    await expect(untilAborted(Promise.resolve(7), signal)).resolves.toBe(7)
    await expect(untilAborted(Promise.reject(new Error('boom')), signal)).rejects.toThrow('boom')
  })

  it("rejects with the signal's reason at once, whether it aborted before or during the wait", async () => {
    const before = new AbortController()
    before.abort(new Error('esc'))
    await expect(untilAborted(new Promise(() => {}), before.signal)).rejects.toThrow('esc')
    const during = new AbortController()
    const waiting = untilAborted(new Promise(() => {}), during.signal)
    during.abort(new Error('later'))
    await expect(waiting).rejects.toThrow('later')
  })
})
